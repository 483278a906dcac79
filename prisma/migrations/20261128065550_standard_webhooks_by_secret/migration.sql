-- Standard Webhooks signs when its secret is set (docs/webhooks.md#standard-webhooks). A secret
-- stored while the flag was off never signed: it is cleared, so those destinations stay unsigned,
-- and the flag mirrors the secret from now on.
UPDATE "destinations" SET "standard_secret" = NULL WHERE NOT "standard_webhooks" AND "standard_secret" IS NOT NULL;
UPDATE "destinations" SET "standard_webhooks" = false WHERE "standard_webhooks" AND "standard_secret" IS NULL;
