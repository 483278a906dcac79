-- json keeps the payload's text as written, so nested objects keep the client's key order (issue 13.11,
-- docs/tracking-api.md#fidelity). Rewrites the table once; existing rows keep jsonb's order.
-- AlterTable
ALTER TABLE "messages" ALTER COLUMN "payload" SET DATA TYPE JSON;
