-- A delivery's two state indexes, (destination_id, state, created_at) and (state, next_attempt_at),
-- become one partial index of the pending deliveries, and deleting a destination gets its own
-- (destination_id). A delivery that ends (delivered, failed) then writes two index entries, not four:
-- its update is never HOT, and every index it does not leave by its WHERE gets a new entry
-- (docs/decisions/0104-delivery-index-entries.md). Every reader of the old two wanted pending ones
-- only: the pending count per destination (metrics), pause, endpoint health.

-- CreateIndex
CREATE INDEX "deliveries_pending_idx" ON "deliveries"("destination_id", "created_at") WHERE "state" = 'pending';

-- CreateIndex
CREATE INDEX "deliveries_destination_id_idx" ON "deliveries"("destination_id");

-- DropIndex
DROP INDEX "deliveries_destination_id_state_created_at_idx";

-- DropIndex
DROP INDEX "deliveries_state_next_attempt_at_idx";
