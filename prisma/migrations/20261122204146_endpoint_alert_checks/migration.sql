-- Endpoint alerts' kind columns take only the values lib/alerts writes (docs/alerts.md), like the
-- status columns of 20261122170000_status_checks; test/migrations.int.test.ts probes each one.
ALTER TABLE "endpoint_alerts" ADD CONSTRAINT "endpoint_alerts_reason_check" CHECK ("reason" IN ('failing', 'success_rate'));
ALTER TABLE "endpoint_alerts" ADD CONSTRAINT "endpoint_alerts_resolution_check" CHECK ("resolution" IN ('recovered', 'reenabled', 'removed'));
