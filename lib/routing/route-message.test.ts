import { describe, expect, it } from "vitest";
import { integrationsAllow, routeMessage } from "./route-message";

const on = { id: "d-on", enabled: true };
const off = { id: "d-off", enabled: false };
const other = { id: "d-other", enabled: true };

describe("routeMessage", () => {
  it("sends to every enabled connected destination by default", () => {
    expect(routeMessage({ type: "identify" }, [on, off, other])).toEqual(["d-on", "d-other"]);
    expect(routeMessage({ type: "identify", integrations: {} }, [on])).toEqual(["d-on"]);
    expect(routeMessage({ type: "identify", integrations: null }, [on])).toEqual(["d-on"]);
  });
  it("sends nowhere without connected destinations", () => {
    expect(routeMessage({ type: "identify" }, [])).toEqual([]);
    expect(routeMessage({ type: "identify" }, [off])).toEqual([]);
  });
  it("honours Webhooks: false, and Webhooks: true over All: false", () => {
    expect(routeMessage({ type: "identify", integrations: { Webhooks: false } }, [on])).toEqual([]);
    expect(routeMessage({ type: "identify", integrations: { All: false } }, [on])).toEqual([]);
    expect(routeMessage({ type: "identify", integrations: { All: false, Webhooks: true } }, [on])).toEqual(["d-on"]);
    expect(routeMessage({ type: "identify", integrations: { All: true, Webhooks: false } }, [on])).toEqual([]);
  });
  it("never sends to a disabled destination, whatever the integrations say", () => {
    expect(routeMessage({ type: "identify", integrations: { Webhooks: true } }, [off])).toEqual([]);
  });
});

describe("integrationsAllow", () => {
  it("matches the key case-sensitively", () => {
    expect(integrationsAllow({ webhooks: false })).toBe(true);
    expect(integrationsAllow({ WEBHOOKS: false, All: false })).toBe(false);
    expect(integrationsAllow({ webhooks: true, All: false })).toBe(false);
  });
  it("treats an options object as enabled, as Segment does", () => {
    expect(integrationsAllow({ All: false, Webhooks: { some: "option" } })).toBe(true);
  });
  it("ignores values that are neither booleans nor objects and falls back to All", () => {
    expect(integrationsAllow({ Webhooks: "no" })).toBe(true);
    expect(integrationsAllow({ Webhooks: null, All: false })).toBe(false);
    expect(integrationsAllow({ All: "false" })).toBe(true);
  });
  it("reads other destination names too", () => {
    expect(integrationsAllow({ Mixpanel: false }, "Mixpanel")).toBe(false);
    expect(integrationsAllow({ Mixpanel: false })).toBe(true);
  });
});
