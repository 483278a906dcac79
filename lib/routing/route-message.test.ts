import { describe, expect, it } from "vitest";
import { integrationsAllow, routeMessage } from "./route-message";

const on = { id: "d-on", enabled: true };
const off = { id: "d-off", enabled: false };
const other = { id: "d-other", enabled: true };

describe("routeMessage", () => {
  it("sends to every enabled connected destination by default", () => {
    expect(routeMessage({}, [on, off, other])).toEqual(["d-on", "d-other"]);
    expect(routeMessage({ integrations: {} }, [on])).toEqual(["d-on"]);
    expect(routeMessage({ integrations: null }, [on])).toEqual(["d-on"]);
  });
  it("sends nowhere without connected destinations", () => {
    expect(routeMessage({}, [])).toEqual([]);
    expect(routeMessage({}, [off])).toEqual([]);
  });
  it("honours Webhooks: false, and Webhooks: true over All: false", () => {
    expect(routeMessage({ integrations: { Webhooks: false } }, [on])).toEqual([]);
    expect(routeMessage({ integrations: { All: false } }, [on])).toEqual([]);
    expect(routeMessage({ integrations: { All: false, Webhooks: true } }, [on])).toEqual(["d-on"]);
    expect(routeMessage({ integrations: { All: true, Webhooks: false } }, [on])).toEqual([]);
  });
  it("never sends to a disabled destination, whatever the integrations say", () => {
    expect(routeMessage({ integrations: { Webhooks: true } }, [off])).toEqual([]);
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
