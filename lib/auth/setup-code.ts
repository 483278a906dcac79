import "server-only";
import { prisma } from "../platform/db";
import { env } from "../platform/env";
import { AppError } from "../platform/errors";
import { randomToken, safeEqual } from "./crypto";

/**
 * The one-time setup code (docs/management-api.md#first-run-setup). Until an owner exists, whoever
 * reaches `/setup` could claim the install; the code proves they can read what `npm start` printed.
 * EVENTRAIL_SETUP_CODE presets it (automation, tests, replicas configured alike); otherwise the first
 * process that needs one stores a random code in `setup_codes`, and every web replica checks that
 * same row. The setup deletes it.
 */
export async function setupCode(): Promise<string> {
  const preset = env().EVENTRAIL_SETUP_CODE;
  if (preset) return preset;
  const rows = await prisma().$queryRaw<{ code: string }[]>`
    INSERT INTO setup_codes (id, code) VALUES (1, ${randomToken("", 18)})
    ON CONFLICT (id) DO UPDATE SET code = setup_codes.code
    RETURNING code`;
  return rows[0].code;
}

export const SETUP_CODE_MISSING =
  "Setting up needs the one-time setup code: open the setup link that npm start printed (http://…/setup?code=…), or use the value of EVENTRAIL_SETUP_CODE";

/** Refuses a setup without the right code (403), in constant time. */
export async function assertSetupCode(given: string): Promise<void> {
  const expected = await setupCode();
  if (!given || !safeEqual(given, expected)) throw new AppError("forbidden", SETUP_CODE_MISSING);
}
