import { defineConfig, devices } from "@playwright/test";

/**
 * e2e: one spec per user story, in Chromium (Debian's), against `next start` and a worker on a
 * fresh database that e2e/global-setup.ts prepares. No retries: a flaky story is a bug.
 *
 * Order (one chain, one file at a time, projects chained by their dependencies): the fresh-install
 * story; the page walk of every empty page; the stories at desktop width; the destination story again
 * at phone width (390×844); the page walk of every page filled with the stories' data, at both widths
 * and in dark mode. Every page a story or a walk photographs also passes the phone and overflow checks
 * (e2e/shot.ts → e2e/checks.ts). The production story has a stack of its own and runs beside the
 * chain on a second worker, and the retry story, which waits out a 1-minute retry window, beside the
 * phone story (docs/decisions/0154-ci-time.md).
 */
const desktop = { ...devices["Desktop Chrome"], storageState: "e2e/.auth/owner.json" };

export default defineConfig({
  testDir: "e2e",
  globalSetup: "./e2e/global-setup.ts",
  retries: 0,
  // Two: the chain on one (each of its projects at `workers: 1`), the production story on the other.
  workers: 2,
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
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  projects: [
    // The fresh-install story runs first and leaves a logged-in owner for the other stories.
    { name: "foundation", testMatch: /foundation\.spec\.ts/, workers: 1, use: { ...devices["Desktop Chrome"] } },
    { name: "walk-empty", testMatch: /walk-empty\.spec\.ts/, dependencies: ["foundation"], workers: 1, use: desktop },
    {
      name: "stories",
      testIgnore: /(foundation|walk-empty|walk|production|retries)\.spec\.ts/,
      dependencies: ["walk-empty"],
      // The stories share one workspace and one worker: one story at a time.
      workers: 1,
      use: desktop,
    },
    // The story that exercises forms, rows and navigation, at phone width: the menu, focus on new rows, no overflow.
    {
      name: "phone",
      testMatch: /destination(s|-filters)\.spec\.ts/,
      dependencies: ["stories"],
      workers: 1,
      use: { ...desktop, viewport: { width: 390, height: 844 } },
    },
    // The retry story waits out its destination's 1-minute retry window: it runs beside the phone
    // story, after the other stories (as it did on one worker), on its own source, capture URL and
    // destination; the stories before it have set the workspace's alert settings it ran under.
    { name: "retries", testMatch: /retries\.spec\.ts/, dependencies: ["stories"], workers: 1, use: desktop },
    // After the phone and retry stories, as on one worker: the walk photographs the data the stories leave.
    { name: "walk", testMatch: /(^|\/)walk\.spec\.ts/, dependencies: ["phone", "retries"], workers: 1, use: desktop },
    // Test-send in a production-like start, on a stack (and database) of its own: it needs no other
    // project and none needs it, so the chain above is unchanged; it runs beside the chain.
    { name: "production", testMatch: /production\.spec\.ts/, use: { ...devices["Desktop Chrome"] } },
  ],
});
