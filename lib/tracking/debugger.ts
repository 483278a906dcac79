import { z } from "zod";
import { prisma } from "../db";
import { notFound } from "../errors";

export const sourceEventsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1, "At least 1").max(200, "At most 200").default(50),
});
export type SourceEventsQuery = z.infer<typeof sourceEventsQuerySchema>;

/** One call in a source's debugger: an accepted message or a rejection. */
export type SourceEventDto = {
  id: string;
  accepted: boolean;
  type: string | null;
  messageId: string | null;
  reason: string | null;
  receivedAt: string;
  payload: unknown;
};

/**
 * A source's most recent calls, newest first: accepted ones from `messages` (index source_id,
 * received_at), rejected ones from `source_calls` (index source_id, id desc), merged by time.
 */
export async function listSourceEvents(opts: { workspaceId: string; sourceId: string; query: SourceEventsQuery }): Promise<{ events: SourceEventDto[] }> {
  const { limit } = opts.query;
  const source = await prisma()
    .source.findFirst({ where: { id: opts.sourceId, workspaceId: opts.workspaceId }, select: { id: true } })
    .catch(() => null);
  if (!source) throw notFound("Source");

  const [messages, calls] = await Promise.all([
    prisma().message.findMany({
      where: { sourceId: source.id },
      orderBy: { receivedAt: "desc" },
      take: limit,
      select: { id: true, type: true, messageId: true, receivedAt: true, payload: true },
    }),
    prisma().sourceCall.findMany({
      where: { sourceId: source.id },
      orderBy: { id: "desc" },
      take: limit,
      select: { id: true, accepted: true, type: true, messageId: true, reason: true, receivedAt: true, payload: true },
    }),
  ]);

  const events: SourceEventDto[] = [
    ...messages.map((m) => ({ id: `m_${m.id}`, accepted: true, type: m.type, messageId: m.messageId, reason: null, receivedAt: m.receivedAt.toISOString(), payload: m.payload })),
    ...calls.map((c) => ({ id: `c_${c.id}`, accepted: c.accepted, type: c.type, messageId: c.messageId, reason: c.reason, receivedAt: c.receivedAt.toISOString(), payload: c.payload })),
  ];
  // Stable: within one request, messages keep their order and come before its rejections.
  events.sort((a, b) => (a.receivedAt < b.receivedAt ? 1 : a.receivedAt > b.receivedAt ? -1 : 0));
  return { events: events.slice(0, limit) };
}
