-- AlterTable
ALTER TABLE "audience_destinations" ADD COLUMN     "synced_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "audience_syncs" ADD COLUMN     "size" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "messages_workspace_id_event_timestamp_idx" ON "messages"("workspace_id", "event", "timestamp");
