-- AlterTable
ALTER TABLE "destinations" ADD COLUMN     "paused_at" TIMESTAMPTZ(3);
