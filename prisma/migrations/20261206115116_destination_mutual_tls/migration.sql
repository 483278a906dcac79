-- AlterTable
ALTER TABLE "destinations" ADD COLUMN     "tls" JSONB;
