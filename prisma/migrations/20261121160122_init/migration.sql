-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "workspaces" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workspaces_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memberships" (
    "user_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "role" TEXT NOT NULL DEFAULT 'owner',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memberships_pkey" PRIMARY KEY ("user_id","workspace_id")
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "csrf_token" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_tokens" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sources" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "write_key" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sources_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "destinations" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "urls" TEXT[],
    "headers" JSONB NOT NULL DEFAULT '[]',
    "shared_secret" TEXT,
    "standard_webhooks" BOOLEAN NOT NULL DEFAULT false,
    "standard_secret" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "mode" TEXT NOT NULL DEFAULT 'any',
    "retry_window_minutes" INTEGER NOT NULL DEFAULT 240,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "destinations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "destination_sources" (
    "destination_id" UUID NOT NULL,
    "source_id" UUID NOT NULL,

    CONSTRAINT "destination_sources_pkey" PRIMARY KEY ("destination_id","source_id")
);

-- CreateTable
CREATE TABLE "messages" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "source_id" UUID,
    "origin" TEXT NOT NULL DEFAULT 'api',
    "origin_ref" TEXT,
    "message_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "user_id" TEXT,
    "anonymous_id" TEXT,
    "event" TEXT,
    "timestamp" TIMESTAMPTZ(3) NOT NULL,
    "original_timestamp" TIMESTAMPTZ(3),
    "sent_at" TIMESTAMPTZ(3),
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "payload" JSONB,

    CONSTRAINT "messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "deliveries" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "message_row_id" UUID NOT NULL,
    "destination_id" UUID NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "pending_urls" TEXT[],
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "first_attempt_at" TIMESTAMPTZ(3),
    "last_attempt_at" TIMESTAMPTZ(3),
    "next_attempt_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "last_status" INTEGER,
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "attempts" (
    "id" BIGSERIAL NOT NULL,
    "workspace_id" UUID NOT NULL,
    "delivery_id" UUID NOT NULL,
    "destination_id" UUID NOT NULL,
    "message_row_id" UUID NOT NULL,
    "message_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "user_id" TEXT,
    "url" TEXT NOT NULL,
    "attempt_number" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "request_headers" JSONB NOT NULL,
    "request_body" TEXT,
    "response_status" INTEGER,
    "response_headers" JSONB,
    "response_body" TEXT,
    "error_kind" TEXT,
    "error_text" TEXT,
    "outcome" TEXT NOT NULL,
    "next_retry_at" TIMESTAMPTZ(3),

    CONSTRAINT "attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "source_calls" (
    "id" BIGSERIAL NOT NULL,
    "source_id" UUID NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "accepted" BOOLEAN NOT NULL,
    "type" TEXT,
    "message_id" TEXT,
    "reason" TEXT,
    "payload" JSONB,

    CONSTRAINT "source_calls_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "capture_bins" (
    "id" TEXT NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "response_status" INTEGER NOT NULL DEFAULT 200,
    "response_delay_ms" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "capture_bins_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "captured_requests" (
    "id" BIGSERIAL NOT NULL,
    "bin_id" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "query" TEXT NOT NULL DEFAULT '',
    "headers" JSONB NOT NULL,
    "body" TEXT NOT NULL,
    "body_size" INTEGER NOT NULL,
    "truncated" BOOLEAN NOT NULL DEFAULT false,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "captured_requests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "profiles" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "anonymous_ids" TEXT[],
    "traits" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "profiles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "identity_links" (
    "workspace_id" UUID NOT NULL,
    "anonymous_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "identity_links_pkey" PRIMARY KEY ("workspace_id","anonymous_id")
);

-- CreateTable
CREATE TABLE "audiences" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "property_name" TEXT NOT NULL,
    "condition" JSONB NOT NULL,
    "schedule_minutes" INTEGER,
    "last_synced_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "audiences_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audience_sources" (
    "audience_id" UUID NOT NULL,
    "source_id" UUID NOT NULL,

    CONSTRAINT "audience_sources_pkey" PRIMARY KEY ("audience_id","source_id")
);

-- CreateTable
CREATE TABLE "audience_destinations" (
    "audience_id" UUID NOT NULL,
    "destination_id" UUID NOT NULL,

    CONSTRAINT "audience_destinations_pkey" PRIMARY KEY ("audience_id","destination_id")
);

-- CreateTable
CREATE TABLE "audience_members" (
    "audience_id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "since" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audience_members_pkey" PRIMARY KEY ("audience_id","user_id")
);

-- CreateTable
CREATE TABLE "audience_syncs" (
    "id" UUID NOT NULL,
    "audience_id" UUID NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'running',
    "initial" BOOLEAN NOT NULL DEFAULT false,
    "trigger" TEXT NOT NULL DEFAULT 'manual',
    "entered" INTEGER NOT NULL DEFAULT 0,
    "exited" INTEGER NOT NULL DEFAULT 0,
    "sent" INTEGER NOT NULL DEFAULT 0,
    "total" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "audience_syncs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "deletion_requests" (
    "id" UUID NOT NULL,
    "workspace_id" UUID NOT NULL,
    "user_ids" TEXT[],
    "status" TEXT NOT NULL DEFAULT 'pending',
    "result" JSONB,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "deletion_requests_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE INDEX "memberships_workspace_id_idx" ON "memberships"("workspace_id");

-- CreateIndex
CREATE INDEX "sessions_user_id_idx" ON "sessions"("user_id");

-- CreateIndex
CREATE INDEX "sessions_expires_at_idx" ON "sessions"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "api_tokens_workspace_id_created_at_idx" ON "api_tokens"("workspace_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "sources_write_key_key" ON "sources"("write_key");

-- CreateIndex
CREATE INDEX "sources_workspace_id_created_at_idx" ON "sources"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "destinations_workspace_id_created_at_idx" ON "destinations"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "destination_sources_source_id_idx" ON "destination_sources"("source_id");

-- CreateIndex
CREATE INDEX "messages_source_id_received_at_idx" ON "messages"("source_id", "received_at");

-- CreateIndex
CREATE INDEX "messages_received_at_idx" ON "messages"("received_at");

-- CreateIndex
CREATE INDEX "messages_workspace_id_user_id_type_event_timestamp_idx" ON "messages"("workspace_id", "user_id", "type", "event", "timestamp");

-- CreateIndex
CREATE INDEX "messages_workspace_id_anonymous_id_idx" ON "messages"("workspace_id", "anonymous_id");

-- CreateIndex
CREATE UNIQUE INDEX "messages_source_id_message_id_key" ON "messages"("source_id", "message_id");

-- CreateIndex
CREATE INDEX "deliveries_destination_id_state_created_at_idx" ON "deliveries"("destination_id", "state", "created_at");

-- CreateIndex
CREATE INDEX "deliveries_state_next_attempt_at_idx" ON "deliveries"("state", "next_attempt_at");

-- CreateIndex
CREATE UNIQUE INDEX "deliveries_message_row_id_destination_id_key" ON "deliveries"("message_row_id", "destination_id");

-- CreateIndex
CREATE INDEX "attempts_workspace_id_id_idx" ON "attempts"("workspace_id", "id" DESC);

-- CreateIndex
CREATE INDEX "attempts_workspace_id_destination_id_id_idx" ON "attempts"("workspace_id", "destination_id", "id" DESC);

-- CreateIndex
CREATE INDEX "attempts_workspace_id_outcome_id_idx" ON "attempts"("workspace_id", "outcome", "id" DESC);

-- CreateIndex
CREATE INDEX "attempts_workspace_id_message_id_idx" ON "attempts"("workspace_id", "message_id");

-- CreateIndex
CREATE INDEX "attempts_workspace_id_user_id_idx" ON "attempts"("workspace_id", "user_id");

-- CreateIndex
CREATE INDEX "attempts_message_row_id_idx" ON "attempts"("message_row_id");

-- CreateIndex
CREATE INDEX "attempts_started_at_idx" ON "attempts"("started_at");

-- CreateIndex
CREATE INDEX "source_calls_source_id_id_idx" ON "source_calls"("source_id", "id" DESC);

-- CreateIndex
CREATE INDEX "capture_bins_workspace_id_created_at_idx" ON "capture_bins"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "captured_requests_bin_id_id_idx" ON "captured_requests"("bin_id", "id" DESC);

-- CreateIndex
CREATE INDEX "captured_requests_received_at_idx" ON "captured_requests"("received_at");

-- CreateIndex
CREATE UNIQUE INDEX "profiles_workspace_id_user_id_key" ON "profiles"("workspace_id", "user_id");

-- CreateIndex
CREATE INDEX "identity_links_workspace_id_user_id_idx" ON "identity_links"("workspace_id", "user_id");

-- CreateIndex
CREATE INDEX "audiences_workspace_id_created_at_idx" ON "audiences"("workspace_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "audiences_workspace_id_property_name_key" ON "audiences"("workspace_id", "property_name");

-- CreateIndex
CREATE INDEX "audience_sources_source_id_idx" ON "audience_sources"("source_id");

-- CreateIndex
CREATE INDEX "audience_destinations_destination_id_idx" ON "audience_destinations"("destination_id");

-- CreateIndex
CREATE INDEX "audience_syncs_audience_id_started_at_idx" ON "audience_syncs"("audience_id", "started_at");

-- CreateIndex
CREATE INDEX "deletion_requests_workspace_id_created_at_idx" ON "deletion_requests"("workspace_id", "created_at");

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sources" ADD CONSTRAINT "sources_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "destinations" ADD CONSTRAINT "destinations_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "destination_sources" ADD CONSTRAINT "destination_sources_destination_id_fkey" FOREIGN KEY ("destination_id") REFERENCES "destinations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "destination_sources" ADD CONSTRAINT "destination_sources_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "messages" ADD CONSTRAINT "messages_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_message_row_id_fkey" FOREIGN KEY ("message_row_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_destination_id_fkey" FOREIGN KEY ("destination_id") REFERENCES "destinations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "source_calls" ADD CONSTRAINT "source_calls_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "capture_bins" ADD CONSTRAINT "capture_bins_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "captured_requests" ADD CONSTRAINT "captured_requests_bin_id_fkey" FOREIGN KEY ("bin_id") REFERENCES "capture_bins"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audiences" ADD CONSTRAINT "audiences_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audience_sources" ADD CONSTRAINT "audience_sources_audience_id_fkey" FOREIGN KEY ("audience_id") REFERENCES "audiences"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audience_sources" ADD CONSTRAINT "audience_sources_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audience_destinations" ADD CONSTRAINT "audience_destinations_audience_id_fkey" FOREIGN KEY ("audience_id") REFERENCES "audiences"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audience_destinations" ADD CONSTRAINT "audience_destinations_destination_id_fkey" FOREIGN KEY ("destination_id") REFERENCES "destinations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audience_members" ADD CONSTRAINT "audience_members_audience_id_fkey" FOREIGN KEY ("audience_id") REFERENCES "audiences"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audience_syncs" ADD CONSTRAINT "audience_syncs_audience_id_fkey" FOREIGN KEY ("audience_id") REFERENCES "audiences"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deletion_requests" ADD CONSTRAINT "deletion_requests_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
