-- AlterTable
ALTER TABLE "destinations" ADD COLUMN     "batch" JSONB;

-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "batch_id" UUID,
ADD COLUMN     "batch_part" TEXT;

-- AlterTable
ALTER TABLE "attempts" ADD COLUMN     "batch_id" UUID;

-- CreateTable
CREATE TABLE "delivery_batches" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "destination_id" UUID NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'open',
    "lead_delivery_id" UUID NOT NULL,
    "urls" TEXT[],
    "events" INTEGER NOT NULL DEFAULT 0,
    "bytes" INTEGER NOT NULL DEFAULT 2,
    "opened_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "close_at" TIMESTAMPTZ(3) NOT NULL,
    "body" TEXT,
    "built_at" TIMESTAMPTZ(3),

    CONSTRAINT "delivery_batches_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "delivery_batches_destination_id_state_idx" ON "delivery_batches"("destination_id", "state");

-- CreateIndex
-- Partial: only batching destinations' deliveries have a batch_id; a full index would add an entry to
-- every delivery ingest inserts (schema.prisma shows it without its WHERE; test/migrations.int.test.ts).
CREATE INDEX "deliveries_batch_id_idx" ON "deliveries"("batch_id") WHERE batch_id IS NOT NULL;

-- CreateIndex
-- Partial, as deliveries_batch_id_idx: only a batch's attempts have a batch_id.
CREATE INDEX "attempts_batch_id_idx" ON "attempts"("batch_id") WHERE batch_id IS NOT NULL;
