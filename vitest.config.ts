import path from "node:path";
import { defineConfig } from "vitest/config";
import SlowFirstSequencer from "./test/harness/sequencer";

const root = path.dirname(new URL(import.meta.url).pathname);
const UNIT = ["{lib,worker,app,components,scripts,bench}/**/*.test.ts", "test/*.test.ts"];
/** Unit files that mock a module of ours (vi.mock): test/house.test.ts keeps this list complete. */
export const MODULE_MOCKS = ["lib/sources/sources.test.ts", "lib/destinations/destinations.test.ts"];

export default defineConfig({
  // "server-only" marks modules the browser must never import (Next enforces it at build time);
  // in tests, as in the worker (node --conditions=react-server), it resolves to its empty module.
  resolve: { alias: { "@": root, "server-only": path.join(root, "node_modules/server-only/empty.js") } },
  test: {
    // Known slow integration files first, so that none is left to run alone at the end (test/harness/sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: UNIT,
          exclude: ["**/*.int.test.ts", "**/node_modules/**", ...MODULE_MOCKS],
          // Unit tests do no I/O: a test still waiting after 5 s is hung, and fails. A synchronous loop
          // cannot be interrupted by a timeout, so loops in tests carry their own bound (issue 40).
          testTimeout: 5_000,
          hookTimeout: 5_000,
          // One module registry per worker, not one per file: importing the same modules again for
          // each of ~125 files was most of the stage (alone: 41 s and 48 CPU-seconds isolated, 9 s
          // and 11 without; docs/decisions/0154-ci-time.md, round 7). Unit tests keep no state in
          // modules between files; those that replace a module (vi.mock) run in "unit-mocks".
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          // Files that replace one of our modules with vi.mock: a registry of their own each, since a
          // module another file imported first would stay the real one. `npm run test:unit` runs both.
          name: "unit-mocks",
          include: MODULE_MOCKS,
          testTimeout: 5_000,
          hookTimeout: 5_000,
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["{lib,worker,app,test,scripts}/**/*.int.test.ts"],
          exclude: ["**/node_modules/**"],
          globalSetup: ["test/harness/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // Files start their own apps, workers and databases, and the longest mostly wait out real
          // windows (a retry window, a claim or lease running out): three at a time kept 2 cores busy
          // where two left them 18 % idle (docs/decisions/0154-ci-time.md, round 4). Four were measured
          // on a shared machine: no faster, and the timing bounds of the login and slow-client tests broke.
          maxWorkers: 3,
        },
      },
    ],
  },
});
