import { defineConfig, devices } from "@playwright/test";

/**
 * e2e: one spec per user story, in Chromium (Debian's), against `next start` and a worker on a
 * fresh database that e2e/global-setup.ts prepares. No retries: a flaky story is a bug.
 */
export default defineConfig({
  testDir: "e2e",
  globalSetup: "./e2e/global-setup.ts",
  retries: 0,
  workers: 1,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  outputDir: "test-results",
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  use: {
    baseURL: process.env.E2E_BASE_URL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
    },
  },
  projects: [
    // The fresh-install story runs first and leaves a logged-in owner for the other stories.
    { name: "foundation", testMatch: /foundation\.spec\.ts/, use: { ...devices["Desktop Chrome"] } },
    {
      name: "stories",
      testIgnore: /foundation\.spec\.ts/,
      dependencies: ["foundation"],
      use: { ...devices["Desktop Chrome"], storageState: "e2e/.auth/owner.json" },
    },
  ],
});
