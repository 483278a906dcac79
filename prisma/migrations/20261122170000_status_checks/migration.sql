-- Status and kind columns take only the values the code writes (docs/architecture.md#state).
-- Prisma's schema cannot express CHECK constraints, so they live in this hand-written migration;
-- test/migrations.int.test.ts proves each one refuses a value outside its list.
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_role_check" CHECK ("role" IN ('owner', 'admin', 'viewer'));
ALTER TABLE "destinations" ADD CONSTRAINT "destinations_mode_check" CHECK ("mode" IN ('any', 'every'));
ALTER TABLE "messages" ADD CONSTRAINT "messages_origin_check" CHECK ("origin" IN ('api', 'audience', 'deletion', 'test'));
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_state_check" CHECK ("state" IN ('pending', 'delivered', 'failed'));
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_outcome_check" CHECK ("outcome" IN ('success', 'retry', 'failed'));
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_error_kind_check" CHECK ("error_kind" IN ('timeout', 'connection', 'dns', 'tls', 'ssrf', 'http', 'internal'));
ALTER TABLE "audience_syncs" ADD CONSTRAINT "audience_syncs_status_check" CHECK ("status" IN ('queued', 'running', 'completed', 'failed', 'skipped'));
ALTER TABLE "audience_syncs" ADD CONSTRAINT "audience_syncs_trigger_check" CHECK ("trigger" IN ('manual', 'schedule', 'created', 'updated'));
ALTER TABLE "deletion_requests" ADD CONSTRAINT "deletion_requests_status_check" CHECK ("status" IN ('pending', 'running', 'completed', 'failed'));
ALTER TABLE "metric_instances" ADD CONSTRAINT "metric_instances_role_check" CHECK ("role" IN ('web', 'worker', 'stopped', 'retired'));
