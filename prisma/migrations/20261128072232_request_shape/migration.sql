-- AlterTable
ALTER TABLE "destinations" ADD COLUMN     "mapping" JSON,
ADD COLUMN     "method" TEXT NOT NULL DEFAULT 'POST';
