-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "backfill_id" UUID;

-- CreateTable
CREATE TABLE "backfills" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "destination_id" UUID NOT NULL,
    "source_ids" UUID[],
    "from_at" TIMESTAMPTZ(3) NOT NULL,
    "to_at" TIMESTAMPTZ(3) NOT NULL,
    "resend" BOOLEAN NOT NULL DEFAULT false,
    "state" TEXT NOT NULL DEFAULT 'running',
    "total" INTEGER NOT NULL,
    "queued" INTEGER NOT NULL DEFAULT 0,
    "done" INTEGER NOT NULL DEFAULT 0,
    "cursor" JSONB,
    "exhausted" BOOLEAN NOT NULL DEFAULT false,
    "started_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" TIMESTAMPTZ(3),

    CONSTRAINT "backfills_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "backfills_destination_id_created_at_idx" ON "backfills"("destination_id", "created_at");

-- CreateIndex
-- Partial: only a backfill's pending deliveries (its window in flight); ingest's deliveries write no entry.
CREATE INDEX "deliveries_backfill_id_state_idx" ON "deliveries"("backfill_id", "state") WHERE "backfill_id" IS NOT NULL AND "state" = 'pending';

-- CreateIndex
-- Partial: a backfill sends a message at most once; ingest's deliveries (no backfill) write no entry.
CREATE UNIQUE INDEX "deliveries_backfill_id_message_row_id_key" ON "deliveries"("backfill_id", "message_row_id") WHERE "backfill_id" IS NOT NULL;

-- AddForeignKey
ALTER TABLE "backfills" ADD CONSTRAINT "backfills_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
