import { describe, expect, it } from "vitest";
import { newRowId } from "./row-ids";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("newRowId", () => {
  it("is a UUIDv7 whose first 48 bits are the time in milliseconds", () => {
    // Later than any id made before in this process (the other tests here go up to now + 30,000 s; the
    // unit files share one process each worker, vitest.config.ts), so the id carries this very time.
    const at = Date.now() + 100_000_000 + 123;
    const id = newRowId(at);
    expect(id).toMatch(UUID_V7);
    expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
  });

  it("sorts in the order the ids were made, within one millisecond and when the clock steps back", () => {
    const at = Date.now() + 20_000_000;
    const ids = [newRowId(at), newRowId(at), newRowId(at), newRowId(at - 5), newRowId(at + 1)];
    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("keeps the order past 4,096 ids in one millisecond by borrowing the next one", () => {
    const at = Date.now() + 30_000_000;
    const ids = Array.from({ length: 5000 }, () => newRowId(at));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
