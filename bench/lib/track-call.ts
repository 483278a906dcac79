/** The track call the ingest benches send (bench/ingest.ts, bench/tracking-cpu.ts): ~600 bytes, a typical order event. */
export function benchTrackCall(n: number, messageId: string, timestamp: string): Record<string, unknown> {
  return {
    type: "track",
    event: "Order Completed",
    userId: `user-${n % 5000}`,
    anonymousId: `anon-${(n * 7919) % 100000}-3f6c2a`,
    messageId,
    timestamp,
    properties: {
      orderId: `ord-${n}`,
      total: 129.9,
      revenue: 119.9,
      currency: "EUR",
      coupon: "WINTER",
      url: "https://shop.example.com/checkout/complete?step=3",
      products: [{ sku: "SKU-1042", name: "Trail shoes", price: 119.9, quantity: 1 }],
    },
    context: {
      library: { name: "@segment/analytics-node", version: "3.1.0" },
      ip: "203.0.113.7",
      locale: "en-GB",
      timezone: "Europe/Berlin",
      userAgent: "Mozilla/5.0 (X11; Linux x86_64)",
    },
    integrations: {},
  };
}
