import { expect, test } from "./fixtures";
import { api, createSource } from "./api";
import { expectNoHorizontalOverflow, PHONE } from "./checks";
import { startReceiver, type Receiver } from "../test/harness/delivery/receiver";
import { AUDIENCE, startOAuthServer, type OAuthServer } from "../test/harness/oauth-server";

// OAuth2 client credentials from the destination form (docs/endpoint-auth.md#oauth2), at phone width:
// a real authorization server (oidc-provider) and a receiver that takes only its valid tokens.
test.use({ viewport: PHONE });

let oauth: OAuthServer;
let rx: Receiver;
test.beforeAll(async () => {
  oauth = await startOAuthServer();
  rx = await startReceiver();
  rx.respond = (r) => {
    const why = oauth.checkBearer(r.headers.authorization, AUDIENCE);
    return why ? { status: 401, body: why } : { status: 200, body: "ok" };
  };
});
test.afterAll(async () => {
  await rx?.close();
  await oauth?.close();
});

test("configure OAuth2 client credentials in the form and test-send: the endpoint takes the token, the result and a capture URL show Bearer ****", async ({
  page,
}) => {
  const source = "Gateway feed";
  await createSource(page, source);
  await page.goto("/destinations/new");
  await page.getByLabel("Name", { exact: true }).fill("Gateway API");
  await page.getByLabel("URL 1", { exact: true }).fill(`${rx.url}/events`);
  await page.getByRole("checkbox", { name: source }).check();

  const client = oauth.clients.basic;
  await page.getByRole("checkbox", { name: /OAuth 2.0 client credentials/ }).check();
  await page.getByLabel("Token URL", { exact: true }).fill(oauth.tokenUrl);
  await page.getByLabel("Client id", { exact: true }).fill(client.clientId);
  // A new setting asks for its secret before it is saved.
  await page.getByRole("button", { name: "Create destination" }).click();
  const secret = page.getByLabel("Client secret", { exact: true });
  await expect(secret).toHaveAccessibleDescription("Enter the client secret");
  await secret.fill(client.clientSecret);
  await page.getByLabel("Audience", { exact: true }).fill(AUDIENCE);
  await expectNoHorizontalOverflow(page);
  await page.getByRole("button", { name: "Create destination" }).click();
  await expect(page).toHaveURL(/\/destinations\/[0-9a-f-]{36}$/);
  const id = page.url().split("/").pop();
  const dto = await api(page, "GET", `/api/destinations/${id}`);
  expect(dto.auth).toMatchObject({ clientId: client.clientId, clientSecret: { set: true, last4: client.clientSecret.slice(-4) } });
  expect(JSON.stringify(dto)).not.toContain(client.clientSecret);
  await expect(page.getByText(`OAuth 2.0 client credentials from ${new URL(oauth.tokenUrl).host}`)).toBeVisible();

  await page.getByRole("button", { name: "Send test track" }).click();
  const result = page.getByRole("region", { name: "Test result" });
  // The status badge is the first "200": a folded response header (a Content-Length of 200) can read the same.
  await expect(result.getByText("200", { exact: true }).first()).toBeVisible();
  await result.getByText("Request and response headers, request body").click();
  await expect(result.getByRole("table", { name: "Request headers" }).getByText("Bearer ****")).toBeVisible();
  expect(rx.requests).toHaveLength(1);
  expect(await result.textContent()).not.toContain(oauth.issued[0]);
  await expectNoHorizontalOverflow(page);

  // The same test-send at a capture URL: it keeps the request as sent, but not the token (docs/endpoint-auth.md#request-log).
  await page.goto("/capture");
  await page.getByRole("button", { name: /^(New capture URL|Create a capture URL)$/ }).click();
  await expect(page.getByRole("heading", { name: "Capture URL", exact: true })).toBeVisible();
  await page.getByLabel("Sign as destination").selectOption({ label: "Gateway API" });
  await page.getByRole("button", { name: "Send test track" }).click();
  // The status badge is the first "200": a folded response header (a Content-Length of 200) can read the same.
  await expect(page.getByRole("region", { name: "Test result" }).getByText("200", { exact: true }).first()).toBeVisible();
  await page.getByRole("list", { name: "Captured requests" }).getByRole("button").first().click();
  const details = page.getByRole("region", { name: "Request details" });
  await expect(details.getByRole("table", { name: "Request headers" }).getByText("Bearer ****")).toBeVisible();
  const shown = await details.textContent();
  for (const token of oauth.issued) expect(shown).not.toContain(token);
  await expectNoHorizontalOverflow(page);
});
