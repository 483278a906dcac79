-- A batch's body (tens of KB: docs/request-shape.md#batching) is TOAST-compressed twice, stored in
-- delivery_batches.body and logged in attempts.request_body; lz4 does it in 2/5 of pglz's CPU for
-- the same size on JSON (docs/decisions/0101-batched-delivery-cost.md). Only values over ~2 KB
-- are compressed at all, so one event's body is not affected. A server built without lz4 keeps
-- pglz: the setting is a speed-up, not a requirement.
DO $$
BEGIN
  ALTER TABLE "delivery_batches" ALTER COLUMN "body" SET COMPRESSION lz4;
  ALTER TABLE "attempts" ALTER COLUMN "request_body" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available: batch bodies stay pglz-compressed';
END
$$;
