import type { MessageType } from "../webhooks/payload";

/** Realistic sample calls for "Send test", Segment-shaped as ingest stores them. */
const CONTEXT = {
  ip: "203.0.113.7",
  locale: "en-US",
  userAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
  library: { name: "analytics.js", version: "5.2.0" },
};

const MOBILE_CONTEXT = {
  ip: "203.0.113.7",
  device: { model: "iPhone15,2", type: "ios" },
  os: { name: "iOS", version: "17.5.1" },
  app: { build: "412", name: "Acme", version: "3.8.0" },
  library: { name: "analytics-ios", version: "4.1.8" },
};

export function samplePayload(type: MessageType): Record<string, unknown> {
  const base = { userId: "user_1042", anonymousId: "5c2f6b7e-93a1-4d8c-b0a4-1f5f0e3a9d21" };
  switch (type) {
    case "page":
      return {
        ...base,
        name: "Pricing",
        properties: { path: "/pricing", referrer: "https://www.google.com/", title: "Pricing — Acme", url: "https://acme.example/pricing" },
        context: CONTEXT,
      };
    case "screen":
      return { ...base, name: "Checkout", properties: { step: 2 }, context: MOBILE_CONTEXT };
    case "identify":
      return {
        ...base,
        traits: { email: "ada@acme.example", name: "Ada Lovelace", plan: "pro", createdAt: "2026-03-02T09:15:00.000Z" },
        context: CONTEXT,
      };
    case "track":
      return {
        ...base,
        event: "Order Completed",
        properties: {
          orderId: "ord_8842",
          revenue: 129.9,
          currency: "EUR",
          products: [{ sku: "SKU-1", name: "Café au lait ☕", price: 4.5, quantity: 2 }],
        },
        context: CONTEXT,
      };
    case "alias":
      return { userId: base.userId, previousId: base.anonymousId, context: CONTEXT };
    case "group":
      return { ...base, groupId: "acme-inc", traits: { name: "Acme Inc.", industry: "Manufacturing", employees: 420 }, context: CONTEXT };
    case "delete":
      return { userId: base.userId };
  }
}
