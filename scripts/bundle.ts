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
import path from "node:path";
import { build, type Plugin } from "esbuild";
import { type BUNDLES, DIST, root } from "./lib/build";

const entries: Record<(typeof BUNDLES)[number], string> = {
  ingest: "ingest/index.ts",
  worker: "worker/index.ts",
  prepare: "scripts/prepare.ts",
};

/**
 * Prisma's generated client sets a global when loaded, so esbuild keeps it, and Prisma's runtime
 * (~8 MB once loaded) with it, in a process that never calls prisma() (the ingest server). Marked
 * free of side effects, it is left out wherever nothing uses it.
 */
const generatedClientIsPure: Plugin = {
  name: "generated-client-is-pure",
  setup(b) {
    b.onResolve({ filter: /generated\/prisma\/client$/ }, (args) => ({
      path: path.join(args.resolveDir, `${args.path}.ts`),
      sideEffects: false,
    }));
  },
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
  // No keepNames: it wraps every named function and arrow in a `__name` call when it is created,
  // each inner one once per call (~1 µs a delivery in the worker: docs/decisions/0020-bench-deliver-method.md).
  // Stack traces still name functions (V8 infers them from their bindings; esbuild renames only a
  // top-level name that two modules share, as `name2`) and the linked source map gives their files and lines;
  // errors set their `name` themselves (lib/platform/errors.ts).
  keepNames: false,
  sourcemap: "linked",
  logLevel: "warning",
  plugins: [generatedClientIsPure],
});
console.log(`[bundle] ${Object.keys(entries).join(", ")} → ${DIST} in ${Date.now() - started} ms`);
