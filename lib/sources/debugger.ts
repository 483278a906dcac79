import "server-only";
import { prisma } from "../platform/db";
import { notFound } from "../platform/errors";
import type { SourceEventDto, SourceEventsQuery } from "./contract";
import { assertSourceId } from "./sources";

/**
 * Where a stored message came from: a client's call, or a delete notice (origin "deletion",
 * origin_ref = the deletion request). A client's call whose payload is gone was erased by a
 * deletion request (lib/deletions/erase.ts keeps the row for the request log, without its data).
 */
export function messageOrigin(m: { origin: string; originRef: string | null; payload: unknown }) {
  if (m.origin === "deletion") return { origin: "deletion" as const, deletionRequestId: m.originRef, erased: false };
  return { origin: "api" as const, deletionRequestId: null, erased: m.payload === null };
}

/**
 * A source's most recent calls, newest first: accepted ones from `messages` (index source_id,
 * received_at), rejected ones from `source_calls` (index source_id, id desc), merged by time.
 */
export async function listSourceEvents(opts: {
  workspaceId: string;
  sourceId: string;
  query: SourceEventsQuery;
}): Promise<{ events: SourceEventDto[] }> {
  const { limit } = opts.query;
  assertSourceId(opts.sourceId);
  const source = await prisma().source.findFirst({ where: { id: opts.sourceId, workspaceId: opts.workspaceId }, select: { id: true } });
  if (!source) throw notFound("Source");

  const [messages, calls] = await Promise.all([
    prisma().message.findMany({
      where: { sourceId: source.id },
      orderBy: { receivedAt: "desc" },
      take: limit,
      select: {
        id: true,
        type: true,
        messageId: true,
        receivedAt: true,
        payload: true,
        origin: true,
        originRef: true,
        violations: true,
        blocked: true,
      },
    }),
    prisma().sourceCall.findMany({
      where: { sourceId: source.id },
      orderBy: { id: "desc" },
      take: limit,
      select: { id: true, accepted: true, type: true, messageId: true, reason: true, receivedAt: true, payload: true },
    }),
  ]);

  const events: SourceEventDto[] = [
    ...messages.map((m) => ({
      id: `m_${m.id}`,
      accepted: true,
      ...messageOrigin(m),
      type: m.type,
      messageId: m.messageId,
      reason: null,
      receivedAt: m.receivedAt.toISOString(),
      payload: m.payload,
      violations: Array.isArray(m.violations) ? (m.violations as SourceEventDto["violations"]) : [],
      blocked: m.blocked,
    })),
    ...calls.map((c) => ({
      id: `c_${c.id}`,
      accepted: c.accepted,
      origin: "api" as const,
      deletionRequestId: null,
      erased: false,
      type: c.type,
      messageId: c.messageId,
      reason: c.reason,
      receivedAt: c.receivedAt.toISOString(),
      payload: c.payload,
      violations: [],
      blocked: false,
    })),
  ];
  // Stable: within one request, messages keep their order and come before its rejections.
  events.sort((a, b) => (a.receivedAt < b.receivedAt ? 1 : a.receivedAt > b.receivedAt ? -1 : 0));
  return { events: events.slice(0, limit) };
}
