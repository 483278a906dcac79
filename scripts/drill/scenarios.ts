/** The six fault drills (issue 9). Each has a bounded number of events and a time limit. */
import { startDrillReceiver, type DrillReceiver } from "./receiver";
import type { Scenario, Stack } from "./harness";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Drill 6's measured phases: half the drill's events in small batches (5 events) sent steadily for
 * several seconds rather than in five 100-event bursts. The bursts gave about five independent
 * samples per phase, so on a loaded machine the alone phase swung ×2 between runs and a ×1.2 goal
 * could not be told from noise; 100 batches give ~100. The traffic also overlaps the dead URL's
 * retries, which the bursts were over before (the first retries come ≥ 1 s after the first
 * attempts). As many events as before: the dead URL's deliveries can only fail as fast as it takes
 * attempts (64 per 5 s timeout), so twice as many would not end within the drill's time limit.
 */
const latencyPhase = (events: number) => ({ events: Math.round(events / 2), batchSize: 5, spacingMs: 100 });

export function scenarios(events: number): Scenario[] {
  let hanging = false;
  return [
    {
      id: "1",
      title: "receiver flapping: 50 % of requests answered 503",
      events,
      spacingMs: 200,
      timeLimitMs: 120_000,
      destinations: async () => [{ name: "flapping", receivers: [await startDrillReceiver(() => (Math.random() < 0.5 ? "fail" : "ok"))] }],
    },
    {
      id: "2",
      title: "receiver hanging past 5 s for 12 s, then answering",
      events,
      spacingMs: 500,
      timeLimitMs: 150_000,
      destinations: async () => [{ name: "hanging", receivers: [await startDrillReceiver(() => (hanging ? "hang" : "ok"))] }],
      async fault() {
        hanging = true;
        await sleep(12_000);
        hanging = false;
      },
    },
    {
      id: "3",
      title: "worker killed with SIGKILL every 3 s and restarted (5 times)",
      events,
      // Sending lasts ~30 s, so every kill lands while events flow.
      spacingMs: 3_000,
      timeLimitMs: 240_000,
      // A receiver taking 1 s per request keeps ~64 deliveries in flight, so every kill cuts requests off.
      destinations: async () => [{ name: "steady", receivers: [await startDrillReceiver(() => "ok", { delayMs: 1_000 })] }],
      async fault(stack: Stack) {
        for (let i = 0; i < 5; i++) {
          await sleep(3_000);
          const victim = stack.workers.shift()!;
          await victim.kill("SIGKILL");
          stack.workers.push(await stack.startWorker());
        }
      },
    },
    {
      id: "4",
      title: "Postgres stopped mid-run for 4 s and restarted",
      events,
      // Sending lasts ~10 s, so the outage is mid-send (the client retries the 503s).
      spacingMs: 1_000,
      timeLimitMs: 180_000,
      destinations: async () => [{ name: "steady", receivers: [await startDrillReceiver(() => "ok", { delayMs: 20 })] }],
      async fault(stack: Stack) {
        await sleep(2_000);
        await stack.restartPostgres(4_000);
      },
    },
    {
      id: "5",
      title: "two workers racing for the same jobs",
      events: events * 2,
      spacingMs: 0,
      timeLimitMs: 120_000,
      destinations: async () => [{ name: "steady", receivers: [await startDrillReceiver()] }],
      async fault(stack: Stack) {
        if (stack.workers.length < 2) stack.workers.push(await stack.startWorker());
      },
    },
    {
      id: "6w",
      title: "warm-up for drill 6's latency figures: the healthy URL alone, not compared",
      // Without it the first baseline runs against a cold app and worker (route compilation, JIT, pools).
      events: Math.round(events / 2),
      spacingMs: 250,
      timeLimitMs: 90_000,
      destinations: async () => [{ name: "healthy", receivers: [await startDrillReceiver()] }],
    },
    {
      id: "6a",
      title: "baseline for drill 6: the healthy URL alone",
      ...latencyPhase(events),
      timeLimitMs: 90_000,
      latencyOf: "healthy",
      destinations: async () => [{ name: "healthy", receivers: [await startDrillReceiver()] }],
    },
    {
      id: "6b",
      title: "baseline for drill 6: the same three destinations, every URL answering",
      // The isolation figure compares drill 6 with this: the same work, only the hanging differs
      // (beside 6a, the healthy URL alone, drill 6 also does three destinations' work).
      ...latencyPhase(events),
      timeLimitMs: 90_000,
      latencyOf: "healthy",
      // Own receivers each (a shared one would count each message's second copy as a duplicate).
      destinations: async () => [
        { name: "healthy", receivers: [await startDrillReceiver()] },
        { name: "other", receivers: [await startDrillReceiver()] },
        { name: "every: healthy + other", receivers: [await startDrillReceiver(), await startDrillReceiver()], mode: "every" },
      ],
    },
    {
      id: "6tb",
      title: "baseline for drill 6t: the healthy destination beside another, neither limited",
      ...latencyPhase(events),
      timeLimitMs: 90_000,
      latencyOf: "healthy",
      destinations: async () => [
        { name: "healthy", receivers: [await startDrillReceiver()] },
        { name: "other", receivers: [await startDrillReceiver()] },
      ],
    },
    {
      id: "6t",
      title: "a destination throttled to 10/s beside a healthy one (docs/webhooks.md#rate-limits)",
      // The throttled one takes events / 2 / 10 seconds to drain; the healthy one's latency is measured meanwhile.
      ...latencyPhase(events),
      timeLimitMs: 240_000,
      latencyOf: "healthy",
      destinations: async () => [
        { name: "healthy", receivers: [await startDrillReceiver()] },
        { name: "throttled", receivers: [await startDrillReceiver()], rateLimit: { perSecond: 10 } },
      ],
    },
    {
      id: "6",
      title: "one dead URL (hangs) beside a healthy one: separate destinations, plus one `every` destination with both",
      // As many as the baselines; the dead URL's deliveries fail after its 1-minute retry window.
      ...latencyPhase(events),
      timeLimitMs: 360_000,
      latencyOf: "healthy",
      destinations: async () => {
        const dead: DrillReceiver = await startDrillReceiver(() => "hang");
        return [
          { name: "healthy", receivers: [await startDrillReceiver()] },
          { name: "dead", receivers: [dead], retryWindowMinutes: 1 },
          { name: "every: healthy + dead", receivers: [await startDrillReceiver(), dead], mode: "every", retryWindowMinutes: 1 },
        ];
      },
    },
  ];
}
