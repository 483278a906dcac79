/**
 * `npm run test:stages` (issue 53, docs/decisions/0154-ci-time.md Round 3): the integration and
 * end-to-end stages side by side after one build, as `npm test` runs them. Both are mostly waiting —
 * on the product's real time windows, on stacks starting, on a browser — so on two cores they overlap
 * well; one after the other they took 480 s + 486 s in the last clean CI run.
 *
 * The build comes first, once: both stages' global setups would otherwise build `.next` at the same
 * time. Each stage's output is printed line by line with its name in front, and a stage that fails
 * fails the whole (both run to their end, so one failure does not hide the other's).
 *
 * Side by side needs a Postgres server both stages share (each file and the e2e run make their own
 * databases on it). Without one answering on TEST_DATABASE_ADMIN_URL (127.0.0.1:5432 by default),
 * each stage would start an embedded server in the same data directory: they run one after the other
 * then, as they do when EVENTRAIL_TEST_STAGES=sequential.
 */
import { spawn } from "node:child_process";
import readline from "node:readline";
import { buildIfNeeded, root } from "./lib/build";
import { postgresAnswers } from "../test/harness/pg";

type Stage = { name: string; command: string[]; env?: Record<string, string> };

const STAGES: Stage[] = [
  { name: "integration", command: ["npx", "vitest", "run", "--project", "integration"] },
  { name: "e2e", command: ["npx", "playwright", "test"], env: { NODE_OPTIONS: "--conditions=react-server" } },
];

/** Runs one stage, its lines prefixed; resolves with its exit code and how long it took. */
function run(stage: Stage): Promise<{ code: number; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(stage.command[0], stage.command.slice(1), {
      cwd: root,
      env: { ...process.env, ...stage.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    for (const stream of [child.stdout, child.stderr]) {
      const out = stream === child.stdout ? process.stdout : process.stderr;
      readline.createInterface({ input: stream }).on("line", (line) => out.write(`[${stage.name}] ${line}\n`));
    }
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), seconds: (performance.now() - started) / 1000 }));
  });
}

async function main() {
  const t0 = performance.now();
  buildIfNeeded((m) => console.log(`[test:stages] ${m}`));
  const sequential = process.env.EVENTRAIL_TEST_STAGES === "sequential" || !(await postgresAnswers());
  console.log(
    `[test:stages] build ready in ${((performance.now() - t0) / 1000).toFixed(0)} s; ${STAGES.map((s) => s.name).join(" and ")} ${
      sequential ? "one after the other" : "side by side"
    }`,
  );
  const results: { name: string; code: number; seconds: number }[] = [];
  if (sequential) for (const s of STAGES) results.push({ name: s.name, ...(await run(s)) });
  else results.push(...(await Promise.all(STAGES.map(async (s) => ({ name: s.name, ...(await run(s)) })))));
  for (const r of results)
    console.log(`[test:stages] ${r.name}: ${r.code === 0 ? "passed" : `FAILED (exit ${r.code})`} in ${r.seconds.toFixed(0)} s`);
  console.log(`[test:stages] all in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  process.exit(results.every((r) => r.code === 0) ? 0 : 1);
}

void main();
