-- AlterTable
ALTER TABLE "destinations" ADD COLUMN     "previous_shared_secret" TEXT,
ADD COLUMN     "previous_shared_secret_expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "previous_standard_secret" TEXT,
ADD COLUMN     "previous_standard_secret_expires_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "attempts" ADD COLUMN     "sent_to" TEXT;
