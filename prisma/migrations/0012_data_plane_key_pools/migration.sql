-- Each data plane's pools of provider keys (docs/providers.md, "Pools of keys"), keys named by
-- fingerprint only. Rows written before pools, and reports of data planes that have none, hold [].
-- AlterTable
ALTER TABLE "data_plane_reports" ADD COLUMN     "key_pools" JSONB NOT NULL DEFAULT '[]';

