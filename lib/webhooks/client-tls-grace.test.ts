import { describe, expect, it } from "vitest";
import { presentedTls, REFUSAL_MEMORY_MS, refused } from "./client-tls-grace";
import type { ClientTls } from "./dispatchers";

const T0 = Date.parse("2026-12-06T12:00:00Z");
const tls = (previousExpiresAt: string | undefined, destinationId = "d1"): ClientTls => ({
  destinationId,
  settings: {
    clientCert: "NEW CERT",
    clientKey: "NEW KEY",
    ca: null,
    ...(previousExpiresAt ? { previousClientCert: "OLD CERT", previousClientKey: "OLD KEY", previousExpiresAt } : {}),
  },
});

describe("the certificate presented during a rotation's grace (docs/endpoint-auth.md#rotation)", () => {
  it("is the new one until a refusal, then the previous one for REFUSAL_MEMORY_MS, then the new one again", () => {
    const t = tls(new Date(T0 + 3_600_000).toISOString());
    const first = presentedTls(t, T0);
    expect([first.previous, first.tls.settings.clientCert]).toEqual([false, "NEW CERT"]);
    expect(refused(t, first, T0)).toMatch(/previous client certificate .* is presented next/);
    const next = presentedTls(t, T0 + 1);
    expect([next.previous, next.tls.slot, next.tls.settings.clientCert, next.tls.settings.clientKey]).toEqual([
      true,
      "previous",
      "OLD CERT",
      "OLD KEY",
    ]);
    expect(presentedTls(t, T0 + REFUSAL_MEMORY_MS + 1).previous).toBe(false);
  });

  it("goes back to the new one when the previous is refused too, and when the grace ends", () => {
    const t = tls(new Date(T0 + 60_000).toISOString(), "d2");
    refused(t, presentedTls(t, T0), T0);
    const previous = presentedTls(t, T0 + 1);
    expect(previous.previous).toBe(true);
    expect(refused(t, previous, T0 + 2)).toMatch(/refused too; the current one is presented next/);
    expect(presentedTls(t, T0 + 3).previous).toBe(false);
    refused(t, presentedTls(t, T0 + 4), T0 + 4);
    expect(presentedTls(t, T0 + 5).previous).toBe(true);
    expect(presentedTls(t, T0 + 60_001).previous).toBe(false);
  });

  it("changes nothing without a previous certificate in its grace", () => {
    const t = tls(undefined, "d3");
    expect(refused(t, presentedTls(t, T0), T0)).toBeNull();
    expect(presentedTls(t, T0 + 1).previous).toBe(false);
    const ended = tls(new Date(T0 - 1).toISOString(), "d4");
    expect(refused(ended, presentedTls(ended, T0), T0)).toBeNull();
  });
});
