/**
 * Argument parsing for `npm run send`, pure so its usage errors are unit-tested.
 */
import type { JsonObject, MessageType } from "../lib/sdk/types";

export const USAGE = `usage: npm run send -- <identify|track|page|screen|group|alias> [options]

  --user ID            userId
  --anonymous ID       anonymousId
  --event NAME         track: event name (required for track)
  --name NAME          page/screen: name
  --category NAME      page/screen: category
  --group ID           group: groupId (required for group)
  --previous ID        alias: previousId (required for alias)
  --props '{...}'      properties (JSON object)
  --traits '{...}'     traits (JSON object)
  --context '{...}'    context (JSON object)
  --integrations '{...}'  e.g. '{"All":false,"Webhooks":true}'
  --timestamp ISO      historical timestamp (ISO 8601)
  --endpoint URL       Tracking API base URL (default $EVENTRAIL_URL, else
                       http://localhost:$PORT, else http://localhost:3000)
  --write-key KEY      the source's write key (required)
  -n N                 send the call N times (default 1)
  -h, --help           this text

The write key is on the source's page in the dashboard (Sources → the source → Write key).

DEBUG=analytics logs what the client does to stderr.`;

const TYPES: readonly MessageType[] = ["identify", "track", "page", "screen", "group", "alias"];

const STRING_FLAGS = {
  "--user": "userId",
  "--anonymous": "anonymousId",
  "--event": "event",
  "--name": "name",
  "--category": "category",
  "--group": "groupId",
  "--previous": "previousId",
  "--timestamp": "timestamp",
} as const;

const JSON_FLAGS = { "--props": "properties", "--traits": "traits", "--context": "context", "--integrations": "integrations" } as const;

export class UsageError extends Error {}

export type SendArgs = { type: MessageType; params: JsonObject; endpoint: string; writeKey: string; count: number };

/** Where `npm start` listens unless told otherwise: EVENTRAIL_URL, else PORT on localhost (README#configuration). */
export function defaultEndpoint(env: { EVENTRAIL_URL?: string; PORT?: string }): string {
  if (env.EVENTRAIL_URL) return env.EVENTRAIL_URL.replace(/\/+$/, "");
  return `http://localhost:${env.PORT || 3000}`;
}

function parseJsonObject(flag: string, value: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new UsageError(`${flag} is not valid JSON: ${value}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new UsageError(`${flag} must be a JSON object, got ${value}`);
  return parsed as JsonObject;
}

/** Throws UsageError("help") when -h/--help is anywhere, before any other check. */
export function parseSendArgs(argv: string[], env: { EVENTRAIL_URL?: string; PORT?: string } = {}): SendArgs {
  if (argv.includes("-h") || argv.includes("--help")) throw new UsageError("help");
  const [type, ...rest] = argv;
  if (!type) throw new UsageError("a message type is required");
  if (!TYPES.includes(type as MessageType)) throw new UsageError(`unknown message type "${type}" (expected one of ${TYPES.join(", ")})`);
  const params: JsonObject = {};
  let endpoint = defaultEndpoint(env);
  let writeKey: string | undefined;
  let count = 1;
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i];
    const value = rest[i + 1];
    if (value === undefined || value.startsWith("--")) throw new UsageError(`${flag} needs a value`);
    if (flag in STRING_FLAGS) params[STRING_FLAGS[flag as keyof typeof STRING_FLAGS]] = value;
    else if (flag in JSON_FLAGS) params[JSON_FLAGS[flag as keyof typeof JSON_FLAGS]] = parseJsonObject(flag, value);
    else if (flag === "--endpoint") endpoint = value;
    else if (flag === "--write-key") writeKey = value;
    else if (flag === "-n") {
      count = Number(value);
      if (!Number.isInteger(count) || count < 1 || count > 1_000_000)
        throw new UsageError(`-n must be an integer from 1 to 1000000, got ${value}`);
    } else throw new UsageError(`unknown option ${flag}`);
  }
  if (!writeKey) throw new UsageError("--write-key is required (the source's write key, from its settings page)");
  return { type: type as MessageType, params, endpoint, writeKey, count };
}
