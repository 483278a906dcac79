/**
 * Node flags for Eventrail's long-running processes (web app and workers), used by `npm start`,
 * the tests and the benchmarks alike. A larger young generation cuts scavenge GC on the hot
 * paths, which build thousands of short-lived objects per request (docs/decisions/0003-ingest-throughput.md).
 */
export const PROCESS_NODE_OPTIONS = "--max-semi-space-size=32";

/**
 * How Node runs our TypeScript outside Next (worker, scripts, benches): through tsx, and with the
 * `react-server` export condition so that `import "server-only"` (the marker on every server module,
 * which Next enforces at build time) resolves to its empty module. Never pass it to `next start`:
 * React's server build would replace the one its SSR needs.
 */
export const TS_NODE_ARGS = ["--conditions=react-server", "--import", "tsx"];

/**
 * The ingest server's own young generation: twice the others'. Each request in flight holds its
 * parsed batch, normalised messages and statement text until Postgres answers, which a 32 MB
 * semi-space would scavenge and copy often (docs/decisions/0003-ingest-throughput.md). A
 * command-line flag, so it wins over the 32 MB that NODE_OPTIONS carries for the other processes.
 */
export const INGEST_NODE_ARGS = ["--max-semi-space-size=64", ...TS_NODE_ARGS];

/**
 * The web app's young generation under `npm start`: 2 MB semi-spaces instead of V8's default 16. It
 * allocates most while loading its modules, which grows the young generation to its maximum and
 * leaves it resident at idle: ~8 MB of its idle RSS (docs/decisions/0155-idle-footprint.md). Not the
 * worker's: at 2 MB its CPU per delivery rose 40 % (decision 0155, 2026-12-07), see WORKER_YOUNG_GENERATION.
 */
export const IDLE_YOUNG_GENERATION = "--max-semi-space-size=2";

/**
 * The worker's young generation, under `npm start` and `npm run worker` alike: V8's default 16 MB,
 * on the command line so that it wins over NODE_OPTIONS. A delivery builds its body, headers and
 * attempt row as short-lived objects: with 2 MB semi-spaces bench:deliver's worker took 40 % more CPU
 * per delivery than with 32 MB (the tests' and benches' PROCESS_NODE_OPTIONS), with 8 MB 35 % more,
 * with 16 MB ~8 % more; 32 MB put the worker at ~250 MB after 100,000 events, past the footprint goal,
 * 16 MB at ~212 (docs/decisions/0155-idle-footprint.md, 2026-12-07).
 */
export const WORKER_YOUNG_GENERATION = "--max-semi-space-size=16";

/**
 * How production runs a compiled process (scripts/bundle.ts → dist/<name>.mjs): plain Node with the
 * `react-server` condition, for the packages the bundle leaves in node_modules and `server-only`.
 */
export function bundleNodeArgs(name: "ingest" | "worker" | "prepare", file: string): string[] {
  const youngGeneration = name === "ingest" ? ["--max-semi-space-size=64"] : name === "worker" ? [WORKER_YOUNG_GENERATION] : [];
  return [...youngGeneration, "--conditions=react-server", file];
}

/**
 * NODE_OPTIONS as `npm start` passes it to its children: the operator's, without the `react-server`
 * condition (never for `next start`; the bundles carry it on their command line). The young
 * generation's size is on each child's command line, where it wins over NODE_OPTIONS: the ingest
 * server's 64 MB, the worker's WORKER_YOUNG_GENERATION, the web app's IDLE_YOUNG_GENERATION (docs/operations.md#footprint).
 */
export function withoutServerCondition(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const current = (env.NODE_OPTIONS ?? "").replace(/--conditions[= ]react-server/g, "").trim();
  return { ...env, NODE_OPTIONS: current };
}

/** NODE_OPTIONS for the tests' and benches' processes: the operator's, plus PROCESS_NODE_OPTIONS unless a size is set. */
export function withNodeOptions(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const current = (env.NODE_OPTIONS ?? "").replace(/--conditions[= ]react-server/g, "").trim();
  return current.includes("--max-semi-space-size")
    ? { ...env, NODE_OPTIONS: current }
    : { ...env, NODE_OPTIONS: `${current} ${PROCESS_NODE_OPTIONS}`.trim() };
}

/**
 * Niceness of the web process under `npm start`: on a shared machine, when the dashboard is busy,
 * the ingest server and workers get the CPU first (`npm run drill -- isolation` measures it).
 */
export const WEB_NICENESS = 10;
