import "server-only";
import crypto from "node:crypto";
import type { Prisma } from "../platform/generated/prisma/client";
import { prisma } from "../platform/db";
import { assertUuid, notFound } from "../platform/errors";
import type { CreateSourceInput, RotateKeyInput, SourceDto, SourceHealthDto, UpdateSourceInput } from "./contract";
import { sourceHealthOf } from "./health";
import { recordAudit, type Actor } from "../audit/record";
import { diffFields } from "../audit/diff";
import type { Role } from "../api/access";

/** Viewers see sources without their write keys (docs/management-api.md#roles). */
type Seen = { role: Role };
const seesKeys = (opts: Partial<Seen>) => opts.role !== "viewer";

const select = {
  id: true,
  workspaceId: true,
  name: true,
  writeKey: true,
  previousWriteKey: true,
  previousWriteKeyExpiresAt: true,
  enabled: true,
  createdAt: true,
  updatedAt: true,
} satisfies Prisma.SourceSelect;
type Row = Prisma.SourceGetPayload<{ select: typeof select }>;
type Tx = Prisma.TransactionClient;

const NO_CALLS: SourceHealthDto = {
  state: "idle",
  recent: { calls: 0, rejected: 0, windowMinutes: 60 },
  rejectedLast24h: { total: 0, byReason: {} },
};

/** Rows → DTOs with their health (lib/sources/health.ts): two queries for any number of sources. */
async function toDtos(rows: Row[], showKeys = true): Promise<SourceDto[]> {
  if (rows.length === 0) return [];
  const health = await sourceHealthOf(
    rows[0].workspaceId,
    rows.map((r) => r.id),
  );
  const now = Date.now();
  return rows.map(({ workspaceId: _, previousWriteKey, previousWriteKeyExpiresAt, ...s }) => ({
    ...s,
    writeKey: showKeys ? s.writeKey : null,
    // Shown while it works: a grace period that has ended leaves nothing to show.
    previousWriteKey:
      showKeys && previousWriteKey && previousWriteKeyExpiresAt && previousWriteKeyExpiresAt.getTime() > now
        ? { prefix: previousWriteKey.slice(0, 6), expiresAt: previousWriteKeyExpiresAt.toISOString() }
        : null,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
    health: health.get(s.id) ?? { ...NO_CALLS, state: s.enabled ? "idle" : "disabled" },
  }));
}
const toDto = async (row: Row, showKeys = true): Promise<SourceDto> => (await toDtos([row], showKeys))[0];

/**
 * A malformed id in a URL names no source: 404 without asking Postgres (which would refuse it as
 * a uuid). Checked up front so that every other database error stays an error (500), never a 404.
 */
export function assertSourceId(id: string): void {
  assertUuid(id, "Source");
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** 32 alphanumeric characters, like Segment's write keys (safe in Basic auth user names). */
export function generateWriteKey(): string {
  const bytes = crypto.randomBytes(32);
  return Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join("");
}

export async function listSources(opts: { workspaceId: string } & Partial<Seen>): Promise<SourceDto[]> {
  const rows = await prisma().source.findMany({ where: { workspaceId: opts.workspaceId }, orderBy: { createdAt: "asc" }, select });
  return toDtos(rows, seesKeys(opts));
}

type Change = { workspaceId: string; actor: Actor };
const audit = (tx: Tx, opts: Change, action: string, id: string, changes?: Record<string, { before: unknown; after: unknown }>) =>
  recordAudit(tx, { workspaceId: opts.workspaceId, actor: opts.actor, action, resourceType: "source", resourceId: id, changes });

export async function createSource(opts: Change & { input: CreateSourceInput }): Promise<SourceDto> {
  const row = await prisma().$transaction(async (tx) => {
    const created = await tx.source.create({
      data: { workspaceId: opts.workspaceId, name: opts.input.name, writeKey: generateWriteKey() },
      select,
    });
    await audit(tx, opts, "source.create", created.id, { name: { before: null, after: created.name } });
    return created;
  });
  return toDto(row);
}

async function findSource(opts: { workspaceId: string; id: string }, db: Tx = prisma()): Promise<Row> {
  assertSourceId(opts.id);
  const row = await db.source.findFirst({ where: { id: opts.id, workspaceId: opts.workspaceId }, select });
  if (!row) throw notFound("Source");
  return row;
}

export async function getSource(opts: { workspaceId: string; id: string } & Partial<Seen>): Promise<SourceDto> {
  return toDto(await findSource(opts), seesKeys(opts));
}

export async function updateSource(opts: Change & { id: string; input: UpdateSourceInput }): Promise<SourceDto> {
  const row = await prisma().$transaction(async (tx) => {
    const before = await findSource(opts, tx);
    const after = await tx.source.update({ where: { id: opts.id }, data: opts.input, select });
    const changes = diffFields({ name: before.name, enabled: before.enabled }, { name: after.name, enabled: after.enabled });
    await audit(tx, opts, before.name !== after.name ? "source.rename" : "source.update", after.id, changes);
    return after;
  });
  return toDto(row);
}

/**
 * Its messages stay (the request log and the attempt chain show them) with source_id set to null in
 * the same transaction, by messages(source_id, received_at); no foreign key does it
 * (docs/architecture.md#foreign-keys-on-the-hot-path). A message an ingest commits after this still
 * names the deleted source: nothing joins messages to sources expecting a row.
 */
export async function deleteSource(opts: Change & { id: string }): Promise<void> {
  await prisma().$transaction(async (tx) => {
    const before = await findSource(opts, tx);
    await tx.source.delete({ where: { id: opts.id } });
    await tx.$executeRaw`UPDATE messages SET source_id = NULL WHERE source_id = ${opts.id}::uuid`;
    await audit(tx, opts, "source.delete", before.id, { name: { before: before.name, after: null } });
  });
}

/**
 * A new write key takes effect at once; the current one keeps working for the grace period
 * (docs/tracking-api.md#write-key-rotation), then answers 401. One old key at a time: rotating
 * again during a grace period ends the older key's at once. The expiry is on the database's clock,
 * which the Tracking API compares it with. Audited in the same transaction.
 */
export async function rotateWriteKey(opts: Change & { id: string; input: RotateKeyInput }): Promise<SourceDto> {
  const grace = opts.input.graceMinutes;
  const row = await prisma().$transaction(async (tx) => {
    await findSource(opts, tx);
    // In one statement: the key being replaced is the one in the row at that moment (`write_key` on
    // the right of SET is the old value), so concurrent rotations cannot lose a key in between.
    await tx.$executeRaw`
      UPDATE sources
         SET previous_write_key = CASE WHEN ${grace}::int > 0 THEN write_key END,
             previous_write_key_expires_at = CASE WHEN ${grace}::int > 0 THEN now() + make_interval(mins => ${grace}::int) END,
             write_key = ${generateWriteKey()},
             updated_at = now()
       WHERE id = ${opts.id}::uuid AND workspace_id = ${opts.workspaceId}::uuid`;
    const after = await tx.source.findUniqueOrThrow({ where: { id: opts.id }, select });
    await audit(tx, opts, "source.rotate_key", after.id, {
      writeKey: { before: "changed", after: "changed" },
      graceMinutes: { before: null, after: grace },
    });
    return after;
  });
  return toDto(row);
}
