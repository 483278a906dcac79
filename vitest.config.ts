import path from "node:path";
import { defineConfig } from "vitest/config";

const root = path.dirname(new URL(import.meta.url).pathname);

export default defineConfig({
  resolve: { alias: { "@": root } },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["{lib,worker,app,components,scripts,bench}/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "**/node_modules/**"],
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["{lib,worker,app,test,scripts}/**/*.int.test.ts"],
          exclude: ["**/node_modules/**"],
          globalSetup: ["test/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // Files start their own apps, workers and databases; two at a time suits 2 cores.
          maxWorkers: 2,
        },
      },
    ],
  },
});
