-- DropIndex
DROP INDEX "attempts_workspace_id_destination_id_id_idx";

-- DropIndex
DROP INDEX "attempts_workspace_id_outcome_id_idx";

-- CreateIndex
CREATE INDEX "attempts_workspace_id_destination_id_id_started_at_idx" ON "attempts"("workspace_id", "destination_id", "id" DESC, "started_at");

-- CreateIndex
CREATE INDEX "attempts_workspace_id_outcome_id_destination_id_started_at_idx" ON "attempts"("workspace_id", "outcome", "id" DESC, "destination_id", "started_at");
