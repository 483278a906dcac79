import { expect, test } from "./fixtures";
import { api } from "./api";
import { DESKTOP, PHONE, expectAccessible, tabTo } from "./checks";
import { shot } from "./shot";

const TYPES = ["page", "screen", "identify", "track", "alias", "group", "delete"] as const;
const SHARED = "e2e-shared-secret";
const STANDARD = `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`;

test("create a capture URL, test-send each of the seven types to it, see each arrive signed", async ({ page }) => {
  test.setTimeout(150_000);
  await page.setViewportSize(DESKTOP);
  // The destination whose signing the test events use (its form has its own story).
  const dest = await api(page, "POST", "/api/destinations", {
    name: "Signed receiver",
    urls: ["https://receiver.example.com/hook"],
    headers: [{ name: "X-Team", value: "growth" }],
    sharedSecret: SHARED,
    standardWebhooks: true,
    standardSecret: STANDARD,
    enabled: true,
    sourceIds: [],
  });

  const other = await api(page, "POST", "/api/destinations", {
    name: "Other receiver",
    urls: ["https://other.example.com/hook"],
    sharedSecret: "not-the-same-secret",
    standardWebhooks: true,
    enabled: true,
    sourceIds: [],
  });

  await page.goto("/capture");
  await expect(page.getByRole("heading", { name: "Capture URLs", exact: true })).toBeVisible();
  await page.getByRole("button", { name: /^(New capture URL|Create a capture URL)$/ }).click();
  await expect(page.getByRole("heading", { name: "Capture URL", exact: true })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Capture URL", exact: true })).toBeFocused();
  const url = (await page.getByTestId("capture-url").textContent())!.trim();
  expect(url).toMatch(/\/c\/[a-z0-9]{24}$/);
  await expect(page.getByText("Waiting for the first request…")).toBeVisible();
  await expect(page.getByText("Keeps the newest 500 requests")).toBeVisible();

  // Signatures are checked by the server against a destination's secrets: by default the one that
  // sent each request, found from the request itself; the page can pick another.
  await expect(page.getByLabel("Check signatures against")).toHaveValue("");
  await page.getByLabel("Sign as destination").selectOption({ label: "Signed receiver" });

  for (const type of TYPES) {
    await page.getByRole("radio", { name: type, exact: true }).click();
    await page.getByRole("button", { name: `Send test ${type}` }).click();
    const result = page.getByRole("region", { name: "Test result" });
    await expect(result.getByText(url)).toBeVisible();
    // Focus goes to what came back.
    await expect(result).toBeFocused();
    // The status badge is the first "200": a folded response header (a Content-Length of 200) can read the same.
    await expect(result.getByText("200", { exact: true }).first()).toBeVisible();
    // Each arrives in the live list within a couple of polls.
    await expect(page.getByRole("list", { name: "Captured requests" }).getByRole("listitem")).toHaveCount(TYPES.indexOf(type) + 1);
  }

  const items = page.getByRole("list", { name: "Captured requests" }).getByRole("button");
  for (const [i, type] of [...TYPES].reverse().entries()) {
    await items.nth(i).click();
    const details = page.getByRole("region", { name: "Request details" });
    const body = JSON.parse((await details.getByLabel("Request body").textContent())!);
    expect(body.type).toBe(type);
    if (type === "track") expect(body).toMatchObject({ version: 1, event: "Order Completed", userId: "user_1042" });
    if (type === "alias") expect(Object.keys(body)).toEqual(expect.arrayContaining(["Previous ID", "User ID"]));
    if (type === "delete") expect(Object.keys(body).sort()).toEqual(["messageId", "timestamp", "type", "userId"]);
    await expect(details.getByLabel("X-Signature verified")).toBeVisible();
    await expect(details.getByLabel("Standard Webhooks verified")).toBeVisible();
    await expect(details.getByText("Checked against Signed receiver, which sent it")).toBeVisible();
    await expect(details.getByRole("table", { name: "Request headers" }).getByText("growth")).toBeVisible();
  }
  await expectAccessible(page, "capture URL with a verified request (1440px)");
  await shot(page, "capture");

  // Another destination's secrets turn the checks red.
  await page.getByLabel("Check signatures against").selectOption({ label: "Other receiver" });
  await expect(page.getByRole("region", { name: "Request details" }).getByLabel("X-Signature does not match")).toBeVisible();
  await expect(page.getByRole("region", { name: "Request details" }).getByLabel("Standard Webhooks does not match")).toBeVisible();

  // The response status and delay are settable, and the receiver answers with them.
  await page.getByLabel("Response status").fill("99");
  await page.getByRole("button", { name: "Save response settings" }).click();
  await expect(page.getByText("Use a status between 200 and 599")).toBeVisible();
  await page.getByLabel("Response status").fill("503");
  await page.getByLabel("Response delay (ms)").fill("300");
  await page.getByRole("button", { name: "Save response settings" }).click();
  await expect(page.getByText("Responds 503 after 300 ms")).toBeVisible();
  const res = await page.request.post(url, { data: { hello: "world" }, headers: { connection: "close" } });
  expect(res.status()).toBe(503);
  await expect(page.getByRole("list", { name: "Captured requests" }).getByRole("listitem")).toHaveCount(8);

  await page.goto("/capture");
  await expect(page.getByRole("row", { name: new RegExp(url.split("/c/")[1]) }).getByText("503", { exact: true })).toBeVisible();
  await shot(page, "capture-list");

  // On a phone, by keyboard: a request opened from the list is verified at once against the
  // destination that sent it, with nothing picked (issue 52 item 2).
  await page.setViewportSize(PHONE);
  await page.goto(`/capture/${url.split("/c/")[1]}`);
  // Back to the default (the page keeps the last choice): the destination that sent each request.
  await page.getByLabel("Check signatures against").selectOption("");
  // Newest first: the unsigned POST above, then the signed delete test.
  const signed = page.getByRole("list", { name: "Captured requests" }).getByRole("button").nth(1);
  await tabTo(page, signed);
  await page.keyboard.press("Enter");
  const phoneDetails = page.getByRole("region", { name: "Request details" });
  await expect(phoneDetails.getByText("Checked against Signed receiver, which sent it")).toBeVisible();
  await expect(phoneDetails.getByLabel("X-Signature verified")).toBeVisible();
  await expect(phoneDetails.getByLabel("Standard Webhooks verified")).toBeVisible();
  await expectAccessible(page, "capture URL with a verified request (390px)");
  await shot(page, "capture");
  await api(page, "DELETE", `/api/destinations/${dest.id}`);
  await api(page, "DELETE", `/api/destinations/${other.id}`);
});
