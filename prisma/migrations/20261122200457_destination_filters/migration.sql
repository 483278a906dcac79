-- AlterTable
ALTER TABLE "destinations" ADD COLUMN     "filter" JSONB;
