-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "ledger_kind" AS ENUM ('topup', 'debit', 'adjustment');

-- CreateEnum
CREATE TYPE "hold_status" AS ENUM ('active', 'settled', 'released', 'expired', 'refused');

-- CreateTable
CREATE TABLE "projects" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rpm_limit" INTEGER,
    "daily_cap_nano" BIGINT,
    "balance_nano" BIGINT NOT NULL DEFAULT 0,
    "held_nano" BIGINT NOT NULL DEFAULT 0,
    "cap_day" DATE,
    "cap_used_nano" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "hint" TEXT NOT NULL,
    "name" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_entries" (
    "id" BIGSERIAL NOT NULL,
    "project_id" TEXT NOT NULL,
    "kind" "ledger_kind" NOT NULL,
    "amount_nano" BIGINT NOT NULL,
    "request_id" TEXT,
    "idempotency_key" TEXT,
    "day" DATE NOT NULL,
    "model" TEXT,
    "access_path" TEXT,
    "input_tokens" INTEGER,
    "output_tokens" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "holds" (
    "request_id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "amount_nano" BIGINT NOT NULL,
    "day" DATE NOT NULL,
    "status" "hold_status" NOT NULL DEFAULT 'active',
    "model" TEXT,
    "access_path" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "closed_at" TIMESTAMPTZ(3),
    "debited_nano" BIGINT,
    "unbilled_nano" BIGINT,
    "refusal" TEXT,

    CONSTRAINT "holds_pkey" PRIMARY KEY ("request_id")
);

-- CreateTable
CREATE TABLE "catalogue_models" (
    "id" TEXT NOT NULL,
    "curated" BOOLEAN NOT NULL,
    "position" INTEGER NOT NULL,
    "tiers" TEXT[],
    "purposes" TEXT[],
    "owned_by" TEXT NOT NULL,
    "created" INTEGER NOT NULL,
    "context_length" INTEGER NOT NULL,
    "max_output_tokens" INTEGER NOT NULL,
    "input_modalities" TEXT[],
    "output_modalities" TEXT[],
    "tools" BOOLEAN NOT NULL DEFAULT false,
    "json_schema" BOOLEAN NOT NULL DEFAULT false,
    "embeddings" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "catalogue_models_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "access_paths" (
    "id" SERIAL NOT NULL,
    "model_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "provider" TEXT NOT NULL,
    "upstream_model" TEXT NOT NULL,
    "credentials_ref" TEXT,
    "input_nano_per_m" BIGINT,
    "output_nano_per_m" BIGINT,
    "image_nano" BIGINT,
    "request_nano" BIGINT,
    "price_verified" BOOLEAN NOT NULL DEFAULT false,
    "price_source" TEXT,

    CONSTRAINT "access_paths_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "catalogue_revisions" (
    "id" SERIAL NOT NULL,
    "loaded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "source" TEXT NOT NULL,
    "defaults" JSONB NOT NULL,

    CONSTRAINT "catalogue_revisions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "change_events" (
    "id" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "change_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- CreateIndex
CREATE INDEX "api_keys_project_id_idx" ON "api_keys"("project_id");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_entries_request_id_key" ON "ledger_entries"("request_id");

-- CreateIndex
CREATE INDEX "ledger_entries_project_id_day_idx" ON "ledger_entries"("project_id", "day");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_entries_project_id_idempotency_key_key" ON "ledger_entries"("project_id", "idempotency_key");

-- CreateIndex
CREATE INDEX "holds_status_expires_at_idx" ON "holds"("status", "expires_at");

-- CreateIndex
CREATE INDEX "holds_project_id_status_idx" ON "holds"("project_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "access_paths_model_id_position_key" ON "access_paths"("model_id", "position");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "holds" ADD CONSTRAINT "holds_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "access_paths" ADD CONSTRAINT "access_paths_model_id_fkey" FOREIGN KEY ("model_id") REFERENCES "catalogue_models"("id") ON DELETE CASCADE ON UPDATE CASCADE;

