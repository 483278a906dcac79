-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "claimed_until" TIMESTAMPTZ(3);
