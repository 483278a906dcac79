-- AlterTable
ALTER TABLE "destinations" ADD COLUMN     "rate_limit_concurrency" INTEGER,
ADD COLUMN     "rate_limit_per_second" INTEGER;

-- CreateTable
CREATE TABLE "rate_limit_state" (
    "destination_id" UUID NOT NULL,
    "tokens" DOUBLE PRECISION NOT NULL,
    "refilled_at" TIMESTAMPTZ(6) NOT NULL,
    "booked_until" TIMESTAMPTZ(3) NOT NULL,
    "lease_expiry" TIMESTAMPTZ(3)[],
    "lease_count" INTEGER[],
    "granted" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "rate_limit_state_pkey" PRIMARY KEY ("destination_id")
);

-- AddForeignKey
ALTER TABLE "rate_limit_state" ADD CONSTRAINT "rate_limit_state_destination_id_fkey" FOREIGN KEY ("destination_id") REFERENCES "destinations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
