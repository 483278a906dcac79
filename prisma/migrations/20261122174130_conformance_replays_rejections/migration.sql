-- DropIndex
DROP INDEX "deliveries_message_row_id_destination_id_key";

-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "replay_number" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "replay_of" UUID;

-- CreateTable
CREATE TABLE "rejection_counts" (
    "source_id" UUID NOT NULL,
    "hour" TIMESTAMPTZ(0) NOT NULL,
    "category" TEXT NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "rejection_counts_pkey" PRIMARY KEY ("source_id","hour","category")
);

-- CreateIndex
CREATE INDEX "rejection_counts_hour_idx" ON "rejection_counts"("hour");

-- CreateIndex
CREATE UNIQUE INDEX "deliveries_message_row_id_destination_id_replay_number_key" ON "deliveries"("message_row_id", "destination_id", "replay_number");

-- AddForeignKey
ALTER TABLE "rejection_counts" ADD CONSTRAINT "rejection_counts_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;
