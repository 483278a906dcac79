import crypto from "node:crypto";
import { prisma } from "../db";
import { notFound } from "../errors";
import type { CreateSourceInput, SourceDto, UpdateSourceInput } from "./schemas";

const select = { id: true, name: true, writeKey: true, enabled: true, createdAt: true, updatedAt: true } as const;
type Row = { id: string; name: string; writeKey: string; enabled: boolean; createdAt: Date; updatedAt: Date };

const toDto = (s: Row): SourceDto => ({ ...s, createdAt: s.createdAt.toISOString(), updatedAt: s.updatedAt.toISOString() });

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** 32 alphanumeric characters, like Segment's write keys (safe in Basic auth user names). */
export function generateWriteKey(): string {
  const bytes = crypto.randomBytes(32);
  return Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join("");
}

export async function listSources(opts: { workspaceId: string }): Promise<SourceDto[]> {
  const rows = await prisma().source.findMany({ where: { workspaceId: opts.workspaceId }, orderBy: { createdAt: "asc" }, select });
  return rows.map(toDto);
}

export async function createSource(opts: { workspaceId: string; input: CreateSourceInput }): Promise<SourceDto> {
  const row = await prisma().source.create({
    data: { workspaceId: opts.workspaceId, name: opts.input.name, writeKey: generateWriteKey() },
    select,
  });
  return toDto(row);
}

export async function getSource(opts: { workspaceId: string; id: string }): Promise<SourceDto> {
  const row = await prisma().source.findFirst({ where: { id: opts.id, workspaceId: opts.workspaceId }, select }).catch(() => null);
  if (!row) throw notFound("Source");
  return toDto(row);
}

export async function updateSource(opts: { workspaceId: string; id: string; input: UpdateSourceInput }): Promise<SourceDto> {
  await getSource(opts);
  const row = await prisma().source.update({ where: { id: opts.id }, data: opts.input, select });
  return toDto(row);
}

export async function deleteSource(opts: { workspaceId: string; id: string }): Promise<void> {
  await getSource(opts);
  await prisma().source.delete({ where: { id: opts.id } });
}

/** A new write key takes effect at once; the old one answers 401 from then on. */
export async function rotateWriteKey(opts: { workspaceId: string; id: string }): Promise<SourceDto> {
  await getSource(opts);
  const row = await prisma().source.update({ where: { id: opts.id }, data: { writeKey: generateWriteKey() }, select });
  return toDto(row);
}
