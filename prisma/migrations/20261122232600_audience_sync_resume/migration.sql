-- AlterTable
ALTER TABLE "audience_syncs" ADD COLUMN     "done_through" TEXT[],
ADD COLUMN     "full_destination_ids" UUID[];
