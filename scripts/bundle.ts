/**
 * `npm run bundle` (part of `npm run build`): one JavaScript file per process of ours — the ingest
 * server, the worker, and `npm start`'s start-up step — so that production runs compiled code, not
 * TypeScript through tsx, which cost each process tens of megabytes (docs/operations.md#footprint).
 *
 * Packages stay in node_modules, loaded by Node as they are (native addons, Prisma's query
 * compiler, pino's workers load files beside themselves). The processes run with
 * `--conditions=react-server`, so `import "server-only"` resolves to its empty module at run time, as
 * it does here (scripts/lib/runtime.ts).
 */
import { build } from "esbuild";
import { type BUNDLES, DIST, root } from "./lib/build";

const entries: Record<(typeof BUNDLES)[number], string> = {
  ingest: "ingest/index.ts",
  worker: "worker/index.ts",
  prepare: "scripts/prepare.ts",
};

const started = Date.now();
await build({
  absWorkingDir: root,
  entryPoints: entries,
  outdir: DIST,
  outExtension: { ".js": ".mjs" },
  bundle: true,
  packages: "external",
  platform: "node",
  target: "node20",
  format: "esm",
  conditions: ["react-server"],
  // Stack traces name our functions and files as they are in the sources.
  keepNames: true,
  sourcemap: "linked",
  logLevel: "warning",
});
console.log(`[bundle] ${Object.keys(entries).join(", ")} → ${DIST} in ${Date.now() - started} ms`);
