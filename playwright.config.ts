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
 * chain on a second worker, and the two stories that wait out 1-minute retry windows (retries,
 * log-by-message) beside the stories after the alert story (docs/decisions/0154-ci-time.md).
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
    // The browser of someone who asked for reduced motion: the dashboard's "live" dots and spinners
    // then stand still (motion-safe:), as WCAG 2.3.3 asks. Animated, each kept the browser drawing
    // 60 frames a second (~7 % of a core for one pulsing dot) on every page a story waited on, and
    // the browser was the largest CPU user of npm test (docs/decisions/0154-ci-time.md, round 6).
    reducedMotion: "reduce",
    // A failed story keeps its trace: every action with the page's DOM before and after it. Without
    // the trace's screencast, which had the browser encode frames all through every passing story
    // too (docs/decisions/0154-ci-time.md, round 6); the failure's own screenshot is kept below.
    // `npm test` runs the stories without one (E2E_TRACE=off: recording snapshots through every
    // passing story was ~16 % of the browser's CPU, round 7) and, when any failed, runs those again
    // with it (scripts/test-stages.ts): the stage has failed either way, the second run is for its trace.
    trace: process.env.E2E_TRACE === "off" ? "off" : { mode: "retain-on-failure", screenshots: false, snapshots: true },
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
    // The alert story first: it sets the workspace's alert settings that the stories after it, and the
    // two that wait out retry windows beside them, run under.
    { name: "alerts", testMatch: /alerts\.spec\.ts/, dependencies: ["walk-empty"], workers: 1, use: desktop },
    {
      name: "stories",
      testIgnore: /(foundation|walk-empty|walk|production|alerts|retries|log-by-message)\.spec\.ts/,
      dependencies: ["alerts"],
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
    // The two stories that wait out their destinations' 1-minute retry windows (about 65 s each, most of
    // it waiting) run beside the stories, one after the other, each on its own source, capture URL and
    // destination: on the chain they were 2½ of its ~10 minutes (docs/decisions/0154-ci-time.md).
    {
      name: "waits",
      testMatch: /(retries|log-by-message)\.spec\.ts/,
      dependencies: ["alerts"],
      workers: 1,
      use: desktop,
    },
    // After the phone and waiting stories: the walk photographs the data the stories leave.
    { name: "walk", testMatch: /(^|\/)walk\.spec\.ts/, dependencies: ["phone", "waits"], workers: 1, use: desktop },
    // Test-send in a production-like start, on a stack (and database) of its own: it needs no other
    // project and none needs it, so the chain above is unchanged; it runs beside the chain.
    { name: "production", testMatch: /production\.spec\.ts/, use: { ...devices["Desktop Chrome"] } },
  ],
});
