import { beforeEach, describe, expect, it } from "vitest";
import { atShutdown, closeRuntime, existing, processWide, type ShutdownStage } from "./runtime";

process.env.LOG_LEVEL = "silent";

describe("the runtime", () => {
  let closed: string[];
  const resource = (name: string, stage: ShutdownStage) =>
    processWide(name, () => ({ name }), { stage, close: async (r) => void closed.push(r.name) });

  beforeEach(async () => {
    await closeRuntime();
    closed = [];
  });

  it("creates a resource once per process and closes it in stage order, whatever the creation order", async () => {
    const first = resource("pool", "database");
    expect(resource("pool", "database")).toBe(first);
    resource("boss", "queue");
    resource("dispatchers", "dispatchers");
    resource("push", "metrics");
    atShutdown("worker jobs", "intake", async () => void closed.push("worker jobs"));
    expect(await closeRuntime()).toEqual({ failed: [] });
    expect(closed).toEqual(["worker jobs", "push", "dispatchers", "boss", "pool"]);
  });

  it("closes the later of one stage first (Prisma before the pool it runs on)", async () => {
    resource("pool", "database");
    resource("prisma", "database");
    await closeRuntime();
    expect(closed).toEqual(["prisma", "pool"]);
  });

  it("forgets what it closed (the next use creates it afresh) and keeps memory-only resources", async () => {
    const pool = resource("pool", "database");
    const counters = processWide("counters", () => ({ n: 1 }));
    await closeRuntime();
    expect(existing("pool")).toBeUndefined();
    expect(resource("pool", "database")).not.toBe(pool);
    expect(processWide("counters", () => ({ n: 2 }))).toBe(counters);
  });

  it("still closes the rest when one fails, and names it", async () => {
    processWide("broken", () => 1, { stage: "dispatchers", close: async () => Promise.reject(new Error("boom")) });
    resource("pool", "database");
    expect(await closeRuntime()).toEqual({ failed: ["broken"] });
    expect(closed).toEqual(["pool"]);
  });

  it("shares one closing between concurrent calls", async () => {
    resource("pool", "database");
    const [a, b] = [closeRuntime(), closeRuntime()];
    expect(a).toBe(b);
    await a;
    expect(closed).toEqual(["pool"]);
  });
});
