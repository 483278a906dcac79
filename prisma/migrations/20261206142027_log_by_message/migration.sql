-- The request log by message (lib/request-log/deliveries.ts) pages each destination's deliveries newest
-- first on (created_at, id). Deleting a destination still finds its deliveries by the first key, so
-- this index replaces (destination_id) instead of joining it: a delivery writes as many index entries
-- as before (docs/decisions/0165-log-by-message.md, docs/decisions/0104-delivery-index-entries.md).

-- CreateIndex
CREATE INDEX "deliveries_destination_id_created_at_id_idx" ON "deliveries"("destination_id", "created_at", "id");

-- DropIndex
DROP INDEX "deliveries_destination_id_idx";
