import { describe, expect, it } from "vitest";
import { audiencePropertyName } from "./names";

describe("audiencePropertyName", () => {
  it.each([
    ["Premium Users", "premium_users"],
    ["premiumUsers", "premium_users"],
    ["PremiumUsers", "premium_users"],
    ["premium-users", "premium_users"],
    ["  Premium   Users  ", "premium_users"],
    ["VIP customers (EU)", "vip_customers_eu"],
    ["Churn risk: 30 days", "churn_risk_30_days"],
    ["already_snake", "already_snake"],
    ["E2E Premium Users", "e2e_premium_users"],
    ["B2B Leads", "b2b_leads"],
    ["Top 10 Users", "top_10_users"],
    ["Top10Users", "top10_users"],
    ["Café Lovers", "café_lovers"],
  ])("%j → %j", (name, property) => {
    expect(audiencePropertyName(name)).toBe(property);
  });

  it("gives the same property to names that differ only in case and punctuation", () => {
    expect(audiencePropertyName("Premium Users")).toBe(audiencePropertyName("premium-users"));
  });

  it("is empty for a name with no letters or digits", () => {
    expect(audiencePropertyName("!!! ---")).toBe("");
  });
});
