-- AlterTable
ALTER TABLE "sources" ADD COLUMN     "tracking_plan_id" UUID;

-- AlterTable
ALTER TABLE "messages" ADD COLUMN     "blocked" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "violations" JSON;

-- CreateTable
CREATE TABLE "tracking_plans" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "rules" JSONB NOT NULL,
    "violations" TEXT NOT NULL DEFAULT 'flag',
    "unplanned" TEXT NOT NULL DEFAULT 'allow',
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tracking_plans_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "tracking_plans_workspace_id_created_at_idx" ON "tracking_plans"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "sources_tracking_plan_id_idx" ON "sources"("tracking_plan_id");

-- AddForeignKey
ALTER TABLE "sources" ADD CONSTRAINT "sources_tracking_plan_id_fkey" FOREIGN KEY ("tracking_plan_id") REFERENCES "tracking_plans"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tracking_plans" ADD CONSTRAINT "tracking_plans_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A source's tracking plan is part of what the ingest process caches per write key and re-checks
-- through `routing_version` (docs/tracking-plans.md#enforcement): connecting, disconnecting (a
-- deleted plan's SET NULL included) and every new plan version bump it in the changing transaction.
CREATE FUNCTION bump_routing_version_on_plan_link() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.routing_version := NEW.routing_version % 2147483647 + 1;
  RETURN NEW;
END $$;

CREATE TRIGGER sources_tracking_plan_routing_version
  BEFORE UPDATE OF tracking_plan_id ON sources
  FOR EACH ROW WHEN (OLD.tracking_plan_id IS DISTINCT FROM NEW.tracking_plan_id)
  EXECUTE FUNCTION bump_routing_version_on_plan_link();

CREATE FUNCTION bump_routing_version_on_plan_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE sources SET routing_version = routing_version % 2147483647 + 1 WHERE tracking_plan_id = NEW.id;
  RETURN NULL;
END $$;

CREATE TRIGGER tracking_plans_routing_version
  AFTER UPDATE OF version ON tracking_plans
  FOR EACH ROW WHEN (OLD.version IS DISTINCT FROM NEW.version)
  EXECUTE FUNCTION bump_routing_version_on_plan_version();
