-- AlterTable
ALTER TABLE "sources" ADD COLUMN     "routing_version" INTEGER NOT NULL DEFAULT 0;

-- The ingest process caches a source and its routing per write key; its statement re-checks
-- `routing_version` in the same primary-key probe that re-checks the key and `enabled`
-- (docs/architecture.md#write-key-cache). Every change to what routes a source's messages bumps it,
-- in the transaction that makes the change, so the next ingest statement sees it.
CREATE FUNCTION bump_source_routing_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'destination_sources' THEN
    IF TG_OP <> 'INSERT' THEN
      UPDATE sources SET routing_version = routing_version % 2147483647 + 1 WHERE id = OLD.source_id;
    END IF;
    IF TG_OP <> 'DELETE' THEN
      UPDATE sources SET routing_version = routing_version % 2147483647 + 1 WHERE id = NEW.source_id;
    END IF;
  ELSE
    -- destinations: routing reads id, enabled and filter (lib/routing/route-message.ts)
    UPDATE sources SET routing_version = routing_version % 2147483647 + 1
     WHERE id IN (SELECT source_id FROM destination_sources WHERE destination_id = NEW.id);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER destination_sources_routing_version
  AFTER INSERT OR UPDATE OR DELETE ON destination_sources
  FOR EACH ROW EXECUTE FUNCTION bump_source_routing_version();

-- A deleted destination's connections go by cascade, which fires the trigger above.
CREATE TRIGGER destinations_routing_version
  AFTER UPDATE OF enabled, filter ON destinations
  FOR EACH ROW WHEN (OLD.enabled IS DISTINCT FROM NEW.enabled OR OLD.filter IS DISTINCT FROM NEW.filter)
  EXECUTE FUNCTION bump_source_routing_version();
