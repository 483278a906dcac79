-- The attempt log's messageId and userId indexes, keyed by the attempt's UTC day before the id
-- (lib/request-log/attempt-days.ts; docs/webhooks.md#delivery-cost). Keyed by the id alone, random
-- as clients make message ids, each attempt's entry landed on a random leaf of the whole log's index:
-- at 5 M attempts over 30 days the log's insert cost 80.5 ms of Postgres per 1,000 rows with them,
-- and 34.3 with these (bench:attempt-indexes, ATTEMPT_PRELOAD). Keyed by day first, a new entry lands
-- among today's. A lookup names every day the log holds: one descent per day.
--
-- Hand-written: schema.prisma cannot say the expression, and describes each index with started_at
-- in its place (test/migrations.int.test.ts knows both by name). The expression must stay the one
-- lib/request-log/attempt-days.ts attemptDay writes, or the planner cannot use the indexes.

-- DropIndex
DROP INDEX "attempts_workspace_id_message_id_idx";

-- DropIndex
DROP INDEX "attempts_workspace_id_user_id_idx";

-- CreateIndex
CREATE INDEX "attempts_workspace_id_started_day_message_id_idx" ON "attempts"("workspace_id", ((started_at AT TIME ZONE 'UTC')::date), "message_id");

-- CreateIndex
CREATE INDEX "attempts_workspace_id_started_day_user_id_idx" ON "attempts"("workspace_id", ((started_at AT TIME ZONE 'UTC')::date), "user_id");
