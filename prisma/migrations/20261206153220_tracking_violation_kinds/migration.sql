-- AlterTable
ALTER TABLE "tracking_plans" ADD COLUMN     "violations_scanned_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "tracking_violation_kinds" (
    "plan_id" UUID NOT NULL,
    "event" TEXT NOT NULL,
    "rule" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tracking_violation_kinds_pkey" PRIMARY KEY ("plan_id","event","rule","path")
);

-- AddForeignKey
ALTER TABLE "tracking_violation_kinds" ADD CONSTRAINT "tracking_violation_kinds_plan_id_fkey" FOREIGN KEY ("plan_id") REFERENCES "tracking_plans"("id") ON DELETE CASCADE ON UPDATE CASCADE;
