import "server-only";
import { recordAudit, type Actor } from "../audit/record";
import { diffFields } from "../audit/diff";
import crypto from "node:crypto";
import { pool, prisma } from "../platform/db";
import { env } from "../platform/env";
import { AppError, notFound } from "../platform/errors";
import type { CaptureBinDto, CreateCaptureBinInput, UpdateCaptureBinInput } from "./contract";
import { CAPTURE_LIMITS } from "./limits";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** 24 lowercase alphanumerics (~124 bits): the URL is public, so the id is its only secret. */
export function generateBinId(): string {
  return Array.from(crypto.randomBytes(24), (b) => ALPHABET[b % ALPHABET.length]).join("");
}

/**
 * Whether `id` could be a bin id at all. Anything else is no such bin, answered before querying: a
 * NUL byte would make Postgres refuse the statement, and that must not become a 500 (nor may a real
 * database error become a 404).
 */
export const isBinId = (id: string): boolean => /^[a-z0-9]{24}$/.test(id);

/** The server's public base: the operator's setting, else the origin the dashboard called us on. */
export function publicBase(req: Request): string {
  const configured = env().EVENTRAIL_PUBLIC_URL;
  if (configured) return configured.replace(/\/$/, "");
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host");
  const proto = req.headers.get("x-forwarded-proto") ?? new URL(req.url).protocol.replace(":", "");
  return host ? `${proto}://${host}` : new URL(req.url).origin;
}

type BinRow = {
  id: string;
  name: string;
  response_status: number;
  response_delay_ms: number;
  created_at: Date;
  request_count: number;
  last_request_at: Date | null;
};

const toBinDto = (r: BinRow, base: string): CaptureBinDto => ({
  id: r.id,
  name: r.name,
  path: `/c/${r.id}`,
  url: `${base}/c/${r.id}`,
  responseStatus: r.response_status,
  responseDelayMs: r.response_delay_ms,
  requestCount: Number(r.request_count),
  lastRequestAt: r.last_request_at ? r.last_request_at.toISOString() : null,
  createdAt: r.created_at.toISOString(),
});

const BIN_SQL = `
  SELECT b.id, b.name, b.response_status, b.response_delay_ms, b.created_at,
         coalesce(s.n, 0)::int AS request_count, s.last AS last_request_at
    FROM capture_bins b
    LEFT JOIN LATERAL (SELECT count(*) AS n, max(received_at) AS last FROM captured_requests r WHERE r.bin_id = b.id) s ON true`;

export async function listCaptureBins(opts: { workspaceId: string; base: string }): Promise<CaptureBinDto[]> {
  const { rows } = await pool().query<BinRow>(`${BIN_SQL} WHERE b.workspace_id = $1 ORDER BY b.created_at DESC`, [opts.workspaceId]);
  return rows.map((r) => toBinDto(r, opts.base));
}

export async function getCaptureBin(opts: { workspaceId: string; id: string; base: string }): Promise<CaptureBinDto> {
  if (!isBinId(opts.id)) throw notFound("Capture URL");
  const { rows } = await pool().query<BinRow>(`${BIN_SQL} WHERE b.workspace_id = $1 AND b.id = $2`, [opts.workspaceId, opts.id]);
  if (!rows[0]) throw notFound("Capture URL");
  return toBinDto(rows[0], opts.base);
}

export async function createCaptureBin(opts: {
  workspaceId: string;
  actor: Actor;
  input: CreateCaptureBinInput;
  base: string;
}): Promise<CaptureBinDto> {
  const count = await prisma().captureBin.count({ where: { workspaceId: opts.workspaceId } });
  if (count >= CAPTURE_LIMITS.binsPerWorkspace) {
    throw new AppError("conflict", `A workspace can have at most ${CAPTURE_LIMITS.binsPerWorkspace} capture URLs; delete one first`);
  }
  const id = generateBinId();
  await prisma().$transaction(async (tx) => {
    const bin = await tx.captureBin.create({
      data: {
        id,
        workspaceId: opts.workspaceId,
        name: opts.input.name ?? "",
        responseStatus: opts.input.responseStatus ?? 200,
        responseDelayMs: opts.input.responseDelayMs ?? 0,
      },
      select: { name: true, responseStatus: true, responseDelayMs: true },
    });
    await recordAudit(tx, {
      workspaceId: opts.workspaceId,
      actor: opts.actor,
      action: "capture_bin.create",
      resourceType: "capture_bin",
      resourceId: id,
      changes: diffFields(null, bin),
    });
  });
  return getCaptureBin({ workspaceId: opts.workspaceId, id, base: opts.base });
}

export async function updateCaptureBin(opts: {
  workspaceId: string;
  actor: Actor;
  id: string;
  input: UpdateCaptureBinInput;
  base: string;
}): Promise<CaptureBinDto> {
  if (!isBinId(opts.id)) throw notFound("Capture URL");
  const fields = { name: true, responseStatus: true, responseDelayMs: true } as const;
  await prisma().$transaction(async (tx) => {
    const before = await tx.captureBin.findFirst({ where: { id: opts.id, workspaceId: opts.workspaceId }, select: fields });
    if (!before) throw notFound("Capture URL");
    const after = await tx.captureBin.update({ where: { id: opts.id }, data: opts.input, select: fields });
    await recordAudit(tx, {
      workspaceId: opts.workspaceId,
      actor: opts.actor,
      action: "capture_bin.update",
      resourceType: "capture_bin",
      resourceId: opts.id,
      changes: diffFields(before, after),
    });
  });
  return getCaptureBin(opts);
}

export async function deleteCaptureBin(opts: { workspaceId: string; actor: Actor; id: string }): Promise<void> {
  if (!isBinId(opts.id)) throw notFound("Capture URL");
  await prisma().$transaction(async (tx) => {
    const { count } = await tx.captureBin.deleteMany({ where: { id: opts.id, workspaceId: opts.workspaceId } });
    if (count === 0) throw notFound("Capture URL");
    await recordAudit(tx, {
      workspaceId: opts.workspaceId,
      actor: opts.actor,
      action: "capture_bin.delete",
      resourceType: "capture_bin",
      resourceId: opts.id,
    });
  });
}

/** 404 unless the bin exists in this workspace (a malformed id names none and is not looked up). */
export async function assertBinInWorkspace(workspaceId: string, binId: string): Promise<void> {
  if (!isBinId(binId)) throw notFound("Capture URL");
  const { rowCount } = await pool().query("SELECT 1 FROM capture_bins WHERE id = $1 AND workspace_id = $2", [binId, workspaceId]);
  if (!rowCount) throw notFound("Capture URL");
}
