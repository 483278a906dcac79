-- Hand-written (schema.prisma cannot say WHERE; docs/architecture.md#message-indexes): two more
-- message indexes hold only the rows their queries can ask for. Messages without a source
-- (audience identifies, deletion notices, test sends) are never looked up by source, and calls
-- without an event name (identify, page, screen, group, alias) are never counted per event:
-- an audience's first sync writes its identifies without these two entries each.
-- "source_id = $1" and "event = $1" imply "IS NOT NULL", so the planner proves the predicates for
-- the debugger, source health, filter preview and the audiences' event counts as before.
DROP INDEX "messages_source_id_received_at_idx";
CREATE INDEX "messages_source_id_received_at_idx" ON "messages"("source_id", "received_at") WHERE "source_id" IS NOT NULL;

DROP INDEX "messages_workspace_id_event_timestamp_idx";
CREATE INDEX "messages_workspace_id_event_timestamp_idx" ON "messages"("workspace_id", "event", "timestamp") WHERE "event" IS NOT NULL;
