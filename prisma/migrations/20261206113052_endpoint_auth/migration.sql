-- AlterTable
ALTER TABLE "destinations" ADD COLUMN     "auth" JSONB;

-- A destination's failed token request is an attempt of its own kind (docs/endpoint-auth.md#token-requests).
ALTER TABLE "attempts" DROP CONSTRAINT "attempts_error_kind_check";
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_error_kind_check" CHECK ("error_kind" IN ('timeout', 'connection', 'dns', 'tls', 'ssrf', 'http', 'internal', 'auth'));
