-- CreateTable
CREATE TABLE "data_plane_reports" (
    "replica_id" TEXT NOT NULL,
    "control_plane_replica" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "report_interval_ms" INTEGER NOT NULL,
    "draining" BOOLEAN NOT NULL,
    "unavailable_reason" TEXT,
    "control_plane_link" TEXT NOT NULL,
    "control_plane_calls" TEXT NOT NULL,
    "catalogue_revision" TEXT,
    "rate_limit" TEXT NOT NULL,
    "circuits" JSONB NOT NULL,
    "reported_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "data_plane_reports_pkey" PRIMARY KEY ("replica_id")
);

-- CreateIndex
CREATE INDEX "data_plane_reports_reported_at_idx" ON "data_plane_reports"("reported_at");

