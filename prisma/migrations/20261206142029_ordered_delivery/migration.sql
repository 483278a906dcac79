-- Ordered delivery (docs/webhooks.md#ordering): per destination, opt-in.
ALTER TABLE "destinations" ADD COLUMN     "max_hold_minutes" INTEGER NOT NULL DEFAULT 60,
ADD COLUMN     "ordering" TEXT NOT NULL DEFAULT 'none';
ALTER TABLE "destinations" ADD CONSTRAINT "destinations_ordering_check" CHECK ("ordering" IN ('none', 'perUser'));

-- Nullable columns with no default: adding them rewrites nothing, and an unordered delivery stores nulls.
ALTER TABLE "deliveries" ADD COLUMN     "held_since" TIMESTAMPTZ(3),
ADD COLUMN     "hold_released_at" TIMESTAMPTZ(3),
ADD COLUMN     "order_key" TEXT;

-- A key's pending deliveries by arrival (lib/delivery/order.ts): partial, so a delivery to a
-- destination that does not order writes no entry, and one that ends leaves it. "Not ended" rather
-- than state = 'pending', as its queries say it: deliveries_pending_idx cannot serve those, so a
-- planner without statistics never scans a destination's whole backlog per key instead.
CREATE INDEX "deliveries_order_idx" ON "deliveries"("destination_id", "order_key", "id")
  WHERE order_key IS NOT NULL AND state <> 'delivered' AND state <> 'failed';

-- Held deliveries (lib/delivery/holds.ts): the hold limit's sweep and the held keys shown; only a
-- held delivery has an entry.
CREATE INDEX "deliveries_held_idx" ON "deliveries"("held_since") WHERE held_since IS NOT NULL AND state <> 'delivered' AND state <> 'failed';

-- The ingest statement writes a delivery's order key from the routing it cached
-- (docs/architecture.md#write-key-cache): turning ordering on or off is a routing change.
DROP TRIGGER destinations_routing_version ON destinations;
CREATE TRIGGER destinations_routing_version
  AFTER UPDATE OF enabled, filter, ordering ON destinations
  FOR EACH ROW WHEN (OLD.enabled IS DISTINCT FROM NEW.enabled OR OLD.filter IS DISTINCT FROM NEW.filter
                     OR OLD.ordering IS DISTINCT FROM NEW.ordering)
  EXECUTE FUNCTION bump_source_routing_version();
