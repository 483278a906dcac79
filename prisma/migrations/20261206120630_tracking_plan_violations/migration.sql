-- A tracking plan's violations view reads its sources' violating calls in a window
-- (docs/tracking-plans.md#violations). Partial: a conforming call, nearly every one, writes no entry.
CREATE INDEX "messages_violations_idx" ON "messages"("source_id", "received_at", "event") WHERE violations IS NOT NULL;

-- The modes' values, as every status column is checked (prisma/migrations/*_status_checks).
ALTER TABLE "tracking_plans" ADD CONSTRAINT "tracking_plans_violations_check" CHECK (violations IN ('flag', 'block'));
ALTER TABLE "tracking_plans" ADD CONSTRAINT "tracking_plans_unplanned_check" CHECK (unplanned IN ('allow', 'flag', 'block'));
