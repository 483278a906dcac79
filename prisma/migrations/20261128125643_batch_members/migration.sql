-- Batch membership moves off the delivery row into a narrow insert-only table
-- (docs/decisions/0102-batch-membership.md): joining a batch used to write a new version of each
-- delivery's row and an entry in each of its indexes, and its result a second one.

-- CreateTable
CREATE TABLE "delivery_batch_members" (
    "delivery_id" UUID NOT NULL,
    "batch_id" UUID NOT NULL,
    "part" TEXT,

    CONSTRAINT "delivery_batch_members_pkey" PRIMARY KEY ("delivery_id")
);

-- The members of batches made before this migration, with their parts.
INSERT INTO "delivery_batch_members" ("delivery_id", "batch_id", "part")
SELECT "id", "batch_id", "batch_part" FROM "deliveries" WHERE "batch_id" IS NOT NULL;

-- CreateIndex
CREATE INDEX "delivery_batch_members_batch_id_delivery_id_idx" ON "delivery_batch_members"("batch_id", "delivery_id");

-- DropIndex
DROP INDEX "deliveries_batch_id_idx";

-- AlterTable
ALTER TABLE "deliveries" DROP COLUMN "batch_id",
DROP COLUMN "batch_part";
