import { describe, expect, it } from "vitest";
import { alertStateKey, alertSummary } from "./dismissal";

describe("alertStateKey", () => {
  it("is the same for the same open alerts in any order", () => {
    const a = { id: "a", disabledAt: null };
    const b = { id: "b", disabledAt: null };
    expect(alertStateKey([a, b])).toBe(alertStateKey([b, a]));
  });
  it("changes when an alert opens, resolves or disables its URL", () => {
    const base = alertStateKey([{ id: "a", disabledAt: null }]);
    expect(
      alertStateKey([
        { id: "a", disabledAt: null },
        { id: "b", disabledAt: null },
      ]),
    ).not.toBe(base);
    expect(alertStateKey([])).not.toBe(base);
    expect(alertStateKey([{ id: "a", disabledAt: "2026-11-28T00:00:00Z" }])).not.toBe(base);
  });
});

describe("alertSummary", () => {
  it("counts endpoints and says how many are disabled", () => {
    expect(alertSummary([{ disabledAt: null }])).toBe("1 endpoint needs attention");
    expect(alertSummary([{ disabledAt: "x" }])).toBe("1 endpoint needs attention (disabled)");
    expect(alertSummary([{ disabledAt: "x" }, { disabledAt: null }, { disabledAt: null }])).toBe("3 endpoints need attention (1 disabled)");
    expect(alertSummary([{ disabledAt: "x" }, { disabledAt: "y" }])).toBe("2 endpoints need attention (all disabled)");
  });
});
