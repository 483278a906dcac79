-- Foreign keys checked on every ingest: their work moves to deleteDestination / deleteSource and the
-- delivery worker (docs/architecture.md#foreign-keys-on-the-hot-path).
-- DropForeignKey
ALTER TABLE "messages" DROP CONSTRAINT "messages_source_id_fkey";

-- DropForeignKey
ALTER TABLE "deliveries" DROP CONSTRAINT "deliveries_destination_id_fkey";
