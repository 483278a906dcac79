-- An interrupted round (docs/webhooks.md#interrupted-rounds): a round a worker claimed and never
-- recorded, logged as an attempt of its own before it is sent again.
ALTER TABLE "attempts" DROP CONSTRAINT "attempts_error_kind_check";
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_error_kind_check" CHECK ("error_kind" IN ('timeout', 'connection', 'dns', 'tls', 'ssrf', 'http', 'internal', 'auth', 'interrupted'));
