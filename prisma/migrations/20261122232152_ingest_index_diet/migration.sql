-- The messages table's index diet (docs/architecture.md#message-indexes): every index is written on
-- every accepted message, so each one is kept only for a query whose plan uses it.

-- Retention's "received_at < cutoff" (lib/maintenance/retention.ts): BRIN, since rows arrive in
-- received_at order; a few pages instead of a B-tree entry per message.
-- DropIndex
DROP INDEX "messages_received_at_idx";

-- CreateIndex
CREATE INDEX "messages_received_at_idx" ON "messages" USING BRIN ("received_at");

-- Deletions and audiences look a user up by (workspace_id, user_id) only; no query reads type,
-- event or timestamp from this index (audiences count events per event, all users at once, through
-- (workspace_id, event, timestamp)).
-- DropIndex
DROP INDEX "messages_workspace_id_user_id_type_event_timestamp_idx";

-- CreateIndex
CREATE INDEX "messages_workspace_id_user_id_idx" ON "messages"("workspace_id", "user_id");

-- Hand-written (schema.prisma cannot say WHERE): both queries that look messages up by anonymous
-- id want the anonymous calls only (erasure: "AND user_id IS NULL"; audiences' scope: "m.user_id IS
-- NULL"), so identified calls — most of a server-side source's — need no entry.
DROP INDEX "messages_workspace_id_anonymous_id_idx";
CREATE INDEX "messages_workspace_id_anonymous_id_idx" ON "messages"("workspace_id", "anonymous_id") WHERE "user_id" IS NULL;
