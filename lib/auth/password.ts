import "server-only";
import { type Algorithm, hash, verify } from "@node-rs/argon2";
import os from "node:os";
import bcrypt from "bcryptjs";
import { createGate } from "../platform/gate";
import { randomToken } from "./crypto";

/**
 * Passwords are hashed with argon2id (docs/management-api.md#passwords) by @node-rs/argon2, which
 * runs on libuv's thread pool: a login flood queues there and never blocks the event loop that also
 * serves the Tracking API. Parameters: OWASP's argon2id baseline (19 MiB, 2 passes, 1 lane). Unlike
 * bcrypt, argon2 reads the whole password, so two passwords sharing their first 72 bytes differ.
 */
// 2 = Algorithm.Argon2id (a const enum, which isolated modules cannot read).
const ARGON2 = { algorithm: 2 as Algorithm, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * At most this many hashes run at once; further ones wait their turn here, in memory. A hash is
 * ~20 MiB of memory-hard work, so a login flood running one per core would take the CPU from the
 * event loop that serves /v1; and libuv's pool has only 4 threads, which the web process also needs
 * for other work (file reads, DNS). Half the cores, at least 1 and at most 2 of the 4 threads, each
 * busy at most half the time while hashes queue: a flood then costs ingestion a bounded share of the
 * CPU, never all of it (`npm run drill -- abuse`). A lone login never waits.
 */
const hashing = createGate({
  slots: Math.max(1, Math.min(2, Math.floor(os.availableParallelism() / 2))),
  maxWaiting: Number.POSITIVE_INFINITY,
  // Under a queue (a flood), each slot hashes at most half the time.
  restRatio: 1,
});

async function inHashSlot<T>(work: () => Promise<T>): Promise<T> {
  const done = await hashing.run(work);
  if (done.turnedAway) throw new Error("unreachable: the hashing gate has no waiting limit");
  return done.value;
}

export const hashPassword = (password: string): Promise<string> => inHashSlot(() => hash(password, ARGON2));

const isBcrypt = (stored: string) => /^\$2[aby]\$/.test(stored);

/**
 * Checks a password against its stored hash. Hashes from before argon2 (bcrypt) still verify, and
 * `upgrade` then asks the caller to store the argon2id hash of the password in their place.
 */
export async function verifyPassword(password: string, stored: string): Promise<{ ok: boolean; upgrade: boolean }> {
  if (isBcrypt(stored)) {
    const ok = await bcrypt.compare(password, stored);
    return { ok, upgrade: ok };
  }
  try {
    return { ok: await inHashSlot(() => verify(stored, password)), upgrade: false };
  } catch {
    // Not a hash we can read: no password matches it.
    return { ok: false, upgrade: false };
  }
}

let dummy: Promise<string> | undefined;

/**
 * A hash with the same parameters as real ones, of a password nobody knows: the login of an unknown
 * email verifies against it, so it takes as long as a wrong password for a real account.
 */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomToken("", 24));
  return dummy;
}
