/**
 * `npm test` (issue 53, docs/decisions/0154-ci-time.md): lint, the unit tests, then the integration
 * and end-to-end stages after one build, each line prefixed with its stage's name. On two cores the
 * stages overlap: the build runs alone (beside it, lint and the unit tests had doubled it), then the
 * integration and end-to-end stages side by side — both need the build, and both are mostly waiting
 * (on the product's real time windows, on stacks starting, on a browser), so they overlap well — and
 * lint and the unit tests start when the first of those two ends, on the core it leaves idle.
 *
 * Every stage runs to its end, so one failure does not hide another's; a stage that fails fails the
 * whole. `npm run test:stages` runs only the build, integration and end-to-end.
 *
 * Side by side needs a Postgres server both stages share (each file and the e2e run make their own
 * databases on it). Without one answering on TEST_DATABASE_ADMIN_URL (127.0.0.1:5432 by default),
 * each stage would start an embedded server in the same data directory: they run one after the other
 * then, as they do when EVENTRAIL_TEST_STAGES=sequential.
 */
import { spawn } from "node:child_process";
import readline from "node:readline";
import { root } from "./lib/build";
import { postgresAnswers } from "../test/harness/pg";

type Stage = {
  name: string;
  command: string[];
  env?: Record<string, string>;
  /** Run after this stage fails, for what it leaves behind (a trace); its result is not counted. */
  afterFailure?: Stage;
};

const TSX = ["npx", "tsx", "--conditions=react-server"];
const CHECKS: Stage[] = [
  { name: "lint", command: ["npm", "run", "-s", "lint"] },
  { name: "unit", command: ["npx", "vitest", "run", "--project", "unit", "--project", "unit-mocks"] },
];
// The Prisma client first, alone: the build would otherwise regenerate it while lint's tsc reads it
// (a clean-clone run failed so: "File '…/generated/prisma/models/…' not found").
const GENERATE: Stage = { name: "generate", command: ["npm", "run", "-s", "generate"] };
const BUILD: Stage = { name: "build", command: [...TSX, "scripts/build-if-needed.ts", "--no-generate"] };
const E2E_ENV = { NODE_OPTIONS: "--conditions=react-server" };
/**
 * After a failed e2e stage: its failed stories (and the projects they depend on) once more, with
 * traces kept for what fails again (playwright-report/, test-results/). It does not change the
 * verdict — the stage has failed — and a story that passes this time is still reported as failed.
 */
const E2E_TRACE: Stage = { name: "e2e-trace", command: ["npx", "playwright", "test", "--last-failed"], env: E2E_ENV };
const STAGES: Stage[] = [
  { name: "integration", command: ["npx", "vitest", "run", "--project", "integration"] },
  // Without traces (playwright.config.ts: recording them through every passing story cost ~16 % of
  // the browser's CPU); E2E_TRACE above runs what failed again, recording, for the trace alone.
  { name: "e2e", command: ["npx", "playwright", "test"], env: { ...E2E_ENV, E2E_TRACE: "off" }, afterFailure: E2E_TRACE },
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

type Result = { name: string; code: number; seconds: number };
const named = async (s: Stage): Promise<Result> => ({ name: s.name, ...(await run(s)) });
/** A stage, and when it fails its `afterFailure` stage (the e2e traces), whose result is not counted. */
async function namedWithTrace(s: Stage): Promise<Result> {
  const r = await named(s);
  if (s.afterFailure && r.code !== 0) {
    console.log(`[test:stages] ${s.name} failed: ${s.afterFailure.name} runs for what it records (the verdict stays failed)`);
    await run(s.afterFailure);
  }
  return r;
}

async function main() {
  const t0 = performance.now();
  const withChecks = process.argv.includes("--with-checks");
  const sequential = process.env.EVENTRAIL_TEST_STAGES === "sequential" || !(await postgresAnswers());
  const results: Result[] = [];
  if (sequential) {
    console.log("[test:stages] one after the other (no shared Postgres, or EVENTRAIL_TEST_STAGES=sequential)");
    for (const s of [GENERATE, ...(withChecks ? CHECKS : []), BUILD]) results.push(await named(s));
    if (results.every((r) => r.code === 0)) for (const s of STAGES) results.push(await namedWithTrace(s));
  } else {
    const generate = await named(GENERATE);
    results.push(generate);
    const checkList = generate.code === 0 && withChecks ? CHECKS : [];
    const build = generate.code === 0 ? await named(BUILD) : null;
    if (build) results.push(build);
    let checks: Promise<Result[]>;
    if (build?.code === 0) {
      console.log(`[test:stages] build ready in ${build.seconds.toFixed(0)} s; ${STAGES.map((s) => s.name).join(" and ")} side by side`);
      const stages = STAGES.map(namedWithTrace);
      // Lint and the unit tests start when the first of the two ends: the integration stage's last
      // ~100 s leave a core idle, and beside the build they had doubled it (20 → 46 s).
      checks = Promise.race(stages).then(() => {
        if (checkList.length) console.log("[test:stages] lint and unit beside the stage still running");
        return Promise.all(checkList.map(named));
      });
      results.push(...(await Promise.all(stages)));
    } else checks = Promise.all(checkList.map(named));
    results.push(...(await checks));
  }
  for (const r of results)
    console.log(`[test:stages] ${r.name}: ${r.code === 0 ? "passed" : `FAILED (exit ${r.code})`} in ${r.seconds.toFixed(0)} s`);
  if (!results.some((r) => r.name === STAGES[0].name))
    console.log("[test:stages] integration and e2e did not run: a step before them failed");
  console.log(`[test:stages] all in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  process.exit(results.every((r) => r.code === 0) ? 0 : 1);
}

void main();
