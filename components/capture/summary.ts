/**
 * "track · Order Completed" for Eventrail's own webhooks, so the list reads at a glance. Read from the
 * preview, which may end mid-body: whole JSON is parsed, a cut one is searched for its first fields.
 */
export function summary(preview: string): string | null {
  if (!preview.startsWith("{")) return null;
  let o: Record<string, unknown> | null = null;
  try {
    o = JSON.parse(preview) as Record<string, unknown>;
  } catch {
    const field = (k: string) => new RegExp(`"${k}":"((?:[^"\\\\]|\\\\.)*)"`).exec(preview)?.[1];
    const type = field("type");
    if (!type) return null;
    o = {
      type,
      event: field("event"),
      name: field("name"),
      groupId: field("groupId"),
      userId: field("userId"),
      "User ID": field("User ID"),
    };
  }
  if (typeof o.type !== "string") return null;
  const detail = o.event ?? o.name ?? o.groupId ?? o.userId ?? o["User ID"];
  return typeof detail === "string" ? `${o.type} · ${detail}` : o.type;
}
