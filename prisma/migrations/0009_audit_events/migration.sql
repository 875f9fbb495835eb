-- CreateTable
CREATE TABLE "audit_events" (
    "id" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "actor" TEXT,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);


-- The actions recorded before this table, in their order: the change events (who acted was not recorded).
INSERT INTO "audit_events" ("kind", "actor", "payload", "created_at")
SELECT "kind", NULL, "payload" - 'actor', "created_at" FROM "change_events" ORDER BY "id";
