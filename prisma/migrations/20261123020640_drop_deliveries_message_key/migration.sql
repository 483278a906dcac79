-- The last foreign key checked on every ingest (docs/architecture.md#foreign-keys-on-the-hot-path):
-- retention deletes a message's deliveries in the statement that deletes the message, and the
-- delivery worker drops a delivery whose message is gone (a replay that raced retention).
-- DropForeignKey
ALTER TABLE "deliveries" DROP CONSTRAINT "deliveries_message_row_id_fkey";
