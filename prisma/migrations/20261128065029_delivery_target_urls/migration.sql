-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "target_urls" TEXT[];
