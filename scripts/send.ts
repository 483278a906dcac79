/**
 * `npm run send -- track --user u1 --event "Signed Up" --write-key KEY`: sends calls to a running
 * instance through the client library, and says what the server made of them.
 */
import { Analytics } from "../lib/sdk/analytics";
import { AnalyticsError } from "../lib/sdk/errors";
import { parseSendArgs, USAGE, UsageError } from "./send-args";

/** Keeps a big -n within the client's bounded queue by waiting for acknowledgements as it goes. */
const MAX_PENDING = 5_000;

async function main(): Promise<number> {
  let args: ReturnType<typeof parseSendArgs>;
  try {
    args = parseSendArgs(process.argv.slice(2), { EVENTRAIL_URL: process.env.EVENTRAIL_URL, PORT: process.env.PORT });
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    // Asked for: the usage on stdout and success; a mistake: the error and the usage on stderr.
    if (err.message === "help") {
      console.log(USAGE);
      return 0;
    }
    console.error(`error: ${err.message}\n\n${USAGE}`);
    return 2;
  }
  const analytics = new Analytics(args.writeKey, { endpoint: args.endpoint, flushAt: Math.min(args.count, 100) });
  let sent = 0;
  let failed = 0;
  analytics.on("success", (e) => (sent += e.messageIds.length));
  analytics.on("failure", (e) => {
    failed += e.messageIds.length;
    console.error(`failed: ${e.messageIds.length} message(s): ${e.error.message}`);
  });
  const send = analytics[args.type].bind(analytics) as (params: object) => string;
  let lastId = "";
  try {
    for (let i = 0; i < args.count; i++) {
      if (analytics.pending >= MAX_PENDING) await analytics.flush();
      lastId = send(args.params);
    }
  } catch (err) {
    if (!(err instanceof AnalyticsError)) throw err;
    await analytics.close();
    console.error(`error: ${err.message}`);
    return 2;
  }
  await analytics.close();
  console.log(
    `${args.type} × ${args.count} to ${args.endpoint}: ${sent} acknowledged, ${failed} failed${args.count === 1 ? ` (messageId ${lastId})` : ""}`,
  );
  return failed === 0 && sent === args.count ? 0 : 1;
}

main().then(
  (code) => (process.exitCode = code),
  (err) => {
    console.error(err);
    process.exitCode = 1;
  },
);
