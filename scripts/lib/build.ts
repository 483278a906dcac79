/**
 * The build `npm start`, the tests and the benches share: the web app (`next build`) and one
 * JavaScript bundle per process of ours (scripts/bundle.ts), so nothing compiles TypeScript at
 * run time (docs/operations.md#starting). Imports no product code: the supervisor uses it.
 */
import { type StdioOptions, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The checkout: the nearest directory above this file with a package.json (from scripts/lib, or from dist/ once bundled). */
function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const root = findRoot(path.dirname(fileURLToPath(import.meta.url)));

/** Where scripts/bundle.ts writes the processes' bundles, and their names (`dist/<name>.mjs`). */
export const DIST = path.join(root, "dist");
export const BUNDLES = ["ingest", "worker", "prepare"] as const;
export const bundlePath = (name: (typeof BUNDLES)[number]) => path.join(DIST, `${name}.mjs`);

function newestMtime(p: string): number {
  const stat = fs.statSync(p);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(p, { withFileTypes: true })) {
    if (entry.name === "generated" || entry.name.startsWith(".") || entry.name === "node_modules") continue;
    // Tests are in no build: editing one must not rebuild the app under the processes running it.
    if (/\.test\.tsx?$/.test(entry.name)) continue;
    newest = Math.max(newest, newestMtime(path.join(p, entry.name)));
  }
  return newest;
}

const changedSince = (built: number, inputs: string[]) =>
  inputs.map((p) => path.join(root, p)).some((p) => fs.existsSync(p) && newestMtime(p) > built);

/** The web app needs a build when there is none, or when its sources changed after it. */
export function needsBuild(): boolean {
  const buildId = path.join(root, ".next", "BUILD_ID");
  if (!fs.existsSync(buildId)) return true;
  return changedSince(fs.statSync(buildId).mtimeMs, ["app", "components", "lib", "next.config.ts", "package.json", "proxy.ts", "prisma"]);
}

/** The bundles need a build when one is missing, or when what they are made of changed after the oldest. */
export function bundlesNeedBuild(): boolean {
  if (!BUNDLES.every((b) => fs.existsSync(bundlePath(b)))) return true;
  const built = Math.min(...BUNDLES.map((b) => fs.statSync(bundlePath(b)).mtimeMs));
  return changedSince(built, ["lib", "ingest", "worker", "scripts", "package.json", "prisma"]);
}

/**
 * What a first build takes on a 2-core machine (docs/decisions/0153-first-start.md), said before it
 * starts so that a first `npm start` does not look stuck.
 */
export const USUAL_BUILD_TIME = "usually about a minute on 2 cores, longer on a busy machine";

/**
 * `npm run build` (the app and the bundles) when the app is stale; only the bundles (seconds) when
 * only they are. Returns what it built, if anything.
 */
export function buildIfNeeded(
  log: (msg: string) => void = console.log,
  /** generate: false when the Prisma client was just generated (npm test does it first, alone: scripts/test-stages.ts) */
  opts: { outputToStderr?: boolean; generate?: boolean } = {},
): "app" | "bundles" | null {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production" };
  // `start.mjs --args` prints its answer on stdout: the build's output must not mix into it.
  const stdio: StdioOptions = opts.outputToStderr ? ["ignore", 2, 2] : "inherit";
  if (needsBuild()) {
    log(`building the web app and the processes, once after install or a change of sources (${USUAL_BUILD_TIME})…`);
    const r = spawnSync("npm", ["run", opts.generate === false ? "build:app" : "build"], { cwd: root, stdio, env });
    if (r.status !== 0) throw new Error("the build failed");
    return "app";
  }
  if (bundlesNeedBuild()) {
    log("compiling the ingest server and the worker (sources changed)…");
    const r = spawnSync("npm", ["run", "-s", "bundle"], { cwd: root, stdio, env });
    if (r.status !== 0) throw new Error("compiling the processes failed");
    return "bundles";
  }
  return null;
}
