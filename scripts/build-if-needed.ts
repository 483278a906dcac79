/**
 * Builds the web app and the processes when their sources changed since the last build (scripts/lib/build.ts):
 * `npm test`'s build stage (scripts/test-stages.ts), run as a child so the other stages' output keeps flowing.
 * `--no-generate`: the Prisma client was generated just before, alone; lint reads it while this runs.
 */
import { buildIfNeeded } from "./lib/build";

try {
  const built = buildIfNeeded((m) => console.log(m), { generate: !process.argv.includes("--no-generate") });
  if (built === null) console.log("the build is up to date");
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
