-- AlterTable
ALTER TABLE "destinations" ADD COLUMN     "disabled_urls" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "alert_settings" (
    "workspace_id" UUID NOT NULL,
    "failing_minutes" INTEGER NOT NULL DEFAULT 15,
    "success_rate_percent" INTEGER NOT NULL DEFAULT 50,
    "disable_after_days" INTEGER NOT NULL DEFAULT 5,
    "notify_url" TEXT,
    "email_admins" BOOLEAN NOT NULL DEFAULT true,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_settings_pkey" PRIMARY KEY ("workspace_id")
);

-- CreateTable
CREATE TABLE "endpoint_alerts" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "destination_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "opened_at" TIMESTAMPTZ(3) NOT NULL,
    "failing_since" TIMESTAMPTZ(3),
    "success_rate" DOUBLE PRECISION,
    "last_error" TEXT,
    "disabled_at" TIMESTAMPTZ(3),
    "resolved_at" TIMESTAMPTZ(3),
    "resolution" TEXT,
    "reenabled_at" TIMESTAMPTZ(3),

    CONSTRAINT "endpoint_alerts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "endpoint_alerts_workspace_id_resolved_at_opened_at_idx" ON "endpoint_alerts"("workspace_id", "resolved_at", "opened_at");

-- CreateIndex
CREATE INDEX "endpoint_alerts_destination_id_url_opened_at_idx" ON "endpoint_alerts"("destination_id", "url", "opened_at");

-- AddForeignKey
ALTER TABLE "alert_settings" ADD CONSTRAINT "alert_settings_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "endpoint_alerts" ADD CONSTRAINT "endpoint_alerts_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "endpoint_alerts" ADD CONSTRAINT "endpoint_alerts_destination_id_fkey" FOREIGN KEY ("destination_id") REFERENCES "destinations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
