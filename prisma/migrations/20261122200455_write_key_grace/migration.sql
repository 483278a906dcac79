-- AlterTable
ALTER TABLE "sources" ADD COLUMN     "previous_write_key" TEXT,
ADD COLUMN     "previous_write_key_expires_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE UNIQUE INDEX "sources_previous_write_key_key" ON "sources"("previous_write_key");
