-- AlterTable
ALTER TABLE "destinations" ADD COLUMN     "auth" JSONB;
