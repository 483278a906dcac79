import { describe, expect, it } from "vitest";
import { destinationFilterSchema, RECEIVE_ALL, type DestinationFilter } from "../destinations/contract";
import { FILTER_TYPES } from "../destinations/filter-types";
import { filterAllows, filterVerdict } from "./destination-filter";
import { routeMessage } from "./route-message";

const filter = (types: string[], mode: "all" | "include" | "exclude" = "all", names: string[] = []) =>
  destinationFilterSchema.parse({ types, events: { mode, names } });

describe("filterVerdict", () => {
  it("passes every call without a filter, or with the receive-all one", () => {
    for (const type of FILTER_TYPES) {
      expect(filterAllows(null, { type, event: "X" })).toBe(true);
      expect(filterAllows(undefined, { type })).toBe(true);
      expect(filterAllows(RECEIVE_ALL, { type, event: null })).toBe(true);
    }
  });
  it("filters nothing when the stored filter is not one the contract writes", () => {
    const odd = [{}, { types: "track" }, { types: ["page"] }, { types: ["page"], events: null }] as unknown as DestinationFilter[];
    for (const f of odd) expect(filterAllows(f, { type: "track", event: "A" })).toBe(true);
  });
  it("passes only the chosen call types", () => {
    const f = filter(["track", "identify"]);
    expect(filterAllows(f, { type: "track", event: "A" })).toBe(true);
    expect(filterAllows(f, { type: "identify" })).toBe(true);
    expect(filterVerdict(f, { type: "page" })).toEqual({ passes: false, reason: "The filter does not include page calls" });
    expect(filterAllows(f, { type: "alias" })).toBe(false);
  });
  it("include: only the named track events, matched exactly and case-sensitively; other types on their type alone", () => {
    const f = filter(["track", "identify"], "include", ["Order Completed"]);
    expect(filterAllows(f, { type: "track", event: "Order Completed" })).toBe(true);
    expect(filterVerdict(f, { type: "track", event: "order completed" })).toEqual({
      passes: false,
      reason: 'The filter receives only the track events it names, and not "order completed"',
    });
    expect(filterAllows(f, { type: "track", event: "Order Completed " })).toBe(false);
    expect(filterAllows(f, { type: "track", event: null })).toBe(false);
    expect(filterAllows(f, { type: "identify", event: null })).toBe(true);
  });
  it("exclude: every track event but the named ones", () => {
    const f = filter([...FILTER_TYPES], "exclude", ["Heartbeat", "Ping"]);
    expect(filterVerdict(f, { type: "track", event: "Ping" })).toEqual({
      passes: false,
      reason: 'The filter excludes track events named "Ping"',
    });
    expect(filterAllows(f, { type: "track", event: "Heartbeat" })).toBe(false);
    expect(filterAllows(f, { type: "track", event: "Signed Up" })).toBe(true);
    expect(filterAllows(f, { type: "page", event: null })).toBe(true);
  });
});

describe("routeMessage with filters", () => {
  it("sends each destination only what its filter passes, integrations first", () => {
    const destinations = [
      { id: "orders", enabled: true, filter: filter(["track"], "include", ["Order Completed"]) },
      { id: "no-pings", enabled: true, filter: filter([...FILTER_TYPES], "exclude", ["Ping"]) },
      { id: "all", enabled: true, filter: null },
    ];
    expect(routeMessage({ type: "track", event: "Order Completed" }, destinations)).toEqual(["orders", "no-pings", "all"]);
    expect(routeMessage({ type: "track", event: "Ping" }, destinations)).toEqual(["all"]);
    expect(routeMessage({ type: "identify", event: null }, destinations)).toEqual(["no-pings", "all"]);
    expect(routeMessage({ type: "track", event: "Order Completed", integrations: { All: false } }, destinations)).toEqual([]);
  });
});

describe("destinationFilterSchema", () => {
  const issues = (raw: unknown) => {
    const r = destinationFilterSchema.safeParse(raw);
    return r.success ? {} : Object.fromEntries(r.error.issues.map((i) => [i.path.join("."), i.message]));
  };
  it("refuses a filter that would receive nothing, unknown types, and event lists that make no sense", () => {
    expect(issues({ types: [], events: { mode: "all" } })).toEqual({
      types: "Choose at least one call type: with none, the destination would receive nothing",
    });
    expect(issues({ types: ["delete"], events: { mode: "all" } })).toHaveProperty("types.0");
    expect(issues({ types: ["track", "track"], events: { mode: "all" } })).toEqual({ types: "A call type is listed twice" });
    expect(issues({ types: ["track"], events: { mode: "include", names: [] } })).toEqual({
      "events.names": "Name at least one track event to include",
    });
    expect(issues({ types: ["page"], events: { mode: "exclude", names: ["X"] } })).toEqual({
      "events.mode": "Event names apply to track calls: include the track type too",
    });
    expect(issues({ types: ["track"], events: { mode: "exclude", names: ["A", " ", "A"] } })).toEqual({
      "events.names.1": "Enter an event name",
      "events.names.2": "This event name is already listed",
    });
    expect(issues({ types: ["track"], events: { mode: "exclude", names: ["A", "A"] } })).toEqual({
      "events.names.1": "This event name is already listed",
    });
    expect(issues({ types: ["track"], events: { mode: "sometimes", names: [] } })).toEqual({
      "events.mode": 'One of "all", "include", "exclude"',
    });
  });
});

describe("filterVerdict on what is inside a call", () => {
  const withWhere = destinationFilterSchema.parse({
    types: ["track"],
    events: { mode: "all" },
    where: { field: "properties.order.total", op: "gt", value: 100 },
  });
  it("passes a call that meets the conditions and says why one does not", () => {
    expect(filterAllows(withWhere, { type: "track", event: "A", payload: { properties: { order: { total: 101 } } } })).toBe(true);
    expect(filterVerdict(withWhere, { type: "track", event: "A", payload: { properties: { order: { total: 99 } } } })).toEqual({
      passes: false,
      reason: "The call does not meet the filter's conditions",
    });
    // Type first: an identify is left out by type, before conditions.
    expect(filterVerdict(withWhere, { type: "identify", payload: {} })).toEqual({
      passes: false,
      reason: "The filter does not include identify calls",
    });
  });
  it("samples by messageId, the same call the same way each time", () => {
    const sampled = destinationFilterSchema.parse({ types: ["track"], events: { mode: "all" }, samplePercent: 50 });
    const answers = Array.from({ length: 100 }, (_, i) => filterAllows(sampled, { type: "track", messageId: `m${i}` }));
    expect(answers.some(Boolean)).toBe(true);
    expect(answers.some((a) => !a)).toBe(true);
    answers.forEach((a, i) => {
      expect(filterAllows(sampled, { type: "track", messageId: `m${i}` })).toBe(a);
    });
  });
  it("filters nothing on a stored condition the contract did not write", () => {
    const odd = { ...RECEIVE_ALL, where: { field: "properties.a", op: "like", value: 1 } } as unknown as DestinationFilter;
    expect(filterAllows(odd, { type: "track", payload: { properties: { a: 1 } } })).toBe(true);
  });
});
