-- The ingest process (ingest/index.ts) pushes its Tracking API counters as role 'ingest'
-- (lib/metrics/push.ts); the check refused that row, so /metrics had no Tracking API counts
-- from it (issue 34).
ALTER TABLE "metric_instances" DROP CONSTRAINT "metric_instances_role_check";
ALTER TABLE "metric_instances" ADD CONSTRAINT "metric_instances_role_check" CHECK ("role" IN ('web', 'worker', 'ingest', 'stopped', 'retired'));
