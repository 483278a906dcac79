/**
 * Run as its own process by lifetime.int.test.ts: uses the client the way a script would and then simply
 * stops doing work. The process must exit by itself; a timer or socket held by the client would keep
 * it alive. Usage: lifetime-child.ts <endpoint> <close|flush|abandon>
 */
import { Analytics } from "../analytics";

const [endpoint, mode] = process.argv.slice(2);
const analytics = new Analytics("wk_child_secret_key", { endpoint, flushAt: 25, flushAfter: 60_000 });
analytics.on("failure", (e) => console.error(`failure: ${e.error.message}`));
for (let i = 0; i < 110; i++) analytics.track({ userId: `u${i}`, event: "Child Event", messageId: `child-${i}` });

if (mode === "close") {
  const result = await analytics.close();
  console.log(JSON.stringify(result));
} else if (mode === "flush") {
  // Flushed but never closed: the idle keep-alive connection must not hold the process.
  const result = await analytics.flush();
  console.log(JSON.stringify(result));
}
// "abandon": neither flushed nor closed; the unref'd flushAfter timer must not hold the process either.
