-- A batch's round is sent by the one job that claims it (docs/request-shape.md#one-send-per-round):
-- the lead's rounds when it was claimed, and until when the claim holds unless its round is
-- recorded first. Every other job of the lead that finds the round claimed sends nothing.

-- AlterTable
ALTER TABLE "delivery_batches" ADD COLUMN     "claimed_round" INTEGER,
ADD COLUMN     "claimed_until" TIMESTAMPTZ(3);
