-- AlterTable
ALTER TABLE "attempts" ADD COLUMN     "method" TEXT;
