-- CreateTable
CREATE TABLE "metric_instances" (
    "id" UUID NOT NULL,
    "role" TEXT NOT NULL,
    "hostname" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "seen_at" TIMESTAMPTZ(3) NOT NULL,
    "snapshot" JSONB NOT NULL DEFAULT '[]',

    CONSTRAINT "metric_instances_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "metric_instances_role_seen_at_idx" ON "metric_instances"("role", "seen_at");
