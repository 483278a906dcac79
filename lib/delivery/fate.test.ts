import { describe, expect, it } from "vitest";
import { endsUnsent } from "./fate";
import type { LoadedDelivery } from "./load";
import { admitDeliveries } from "./policy";

type Fated = Pick<LoadedDelivery, "erased" | "targetUrls" | "pendingUrls" | "destination">;
const destination = (over: Partial<LoadedDelivery["destination"]> = {}) =>
  ({
    urls: ["https://a.example/hook"],
    disabledUrls: [],
    enabled: true,
    rateLimit: { perSecond: 10, concurrency: null },
    ...over,
  }) as LoadedDelivery["destination"];
const delivery = (over: Partial<Fated> = {}): Fated => ({
  erased: false,
  targetUrls: null,
  pendingUrls: null,
  destination: destination(),
  ...over,
});

describe("a fetched delivery's fate: sent, or ended unsent with its reason (docs/architecture.md#one-plan)", () => {
  it("ends an erased message's, a disabled destination's and one left only disabled URLs; a test-send always goes", () => {
    expect(endsUnsent(delivery())).toBeNull();
    expect(endsUnsent(delivery({ erased: true }))).toBe("message was erased by a deletion request");
    expect(endsUnsent(delivery({ destination: destination({ enabled: false }) }))).toBe("destination is disabled");
    const allDisabled = destination({ urls: [], disabledUrls: ["https://a.example/hook"] });
    expect(endsUnsent(delivery({ destination: allDisabled }))).toBe("the URLs it was for are disabled after failing for days");
    const pendingDisabled = destination({ urls: ["https://b.example/hook"], disabledUrls: ["https://a.example/hook"] });
    expect(endsUnsent(delivery({ destination: pendingDisabled, pendingUrls: ["https://a.example/hook"] }))).not.toBeNull();
    expect(endsUnsent(delivery({ destination: destination({ enabled: false }), targetUrls: ["https://c.example/x"] }))).toBeNull();
  });

  it("a rate-limited destination's delivery that ends unsent takes no turn: the limiter is not even asked", async () => {
    // Every URL disabled by the endpoint alerts: before, it took a token and then failed unsent.
    const d = {
      ...delivery({ destination: destination({ urls: [], disabledUrls: ["https://a.example/hook"] }) }),
      id: "d1",
      destinationId: "t1",
      test: false,
    } as LoadedDelivery;
    // No database in unit tests: asking the limiter (a Postgres statement) would throw.
    const admission = await admitDeliveries([d]);
    expect(admission.turns).toEqual([null]);
  });
});
