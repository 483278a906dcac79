-- DropIndex
DROP INDEX "attempts_started_at_idx";

-- CreateIndex
CREATE INDEX "attempts_started_at_idx" ON "attempts" USING BRIN ("started_at");
