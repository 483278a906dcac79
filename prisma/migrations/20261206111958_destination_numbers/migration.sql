-- AlterTable
ALTER TABLE "destinations" ADD COLUMN     "numbers" TEXT NOT NULL DEFAULT 'canonical';
