/**
 * Builds the web app and the processes when their sources changed since the last build (scripts/lib/build.ts):
 * `npm test`'s build stage (scripts/test-stages.ts), run as a child so the other stages' output keeps flowing.
 */
import { buildIfNeeded } from "./lib/build";

try {
  const built = buildIfNeeded((m) => console.log(m));
  if (built === null) console.log("the build is up to date");
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
