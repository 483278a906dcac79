import { expect, test } from "./fixtures";
import { api } from "./api";
import { DESKTOP, expectAccessible, expectNoHorizontalOverflow, PHONE, tabTo } from "./checks";
import { shot } from "./shot";
import { ARTIFACTS } from "./owner";
import { issue, makeCa } from "../test/harness/test-ca";

/**
 * The destination page's shape and its secrets (issue 52 items 5 and 6, issue 49): the Rotate secret
 * dialog (docs/signing.md#secret-rotation, docs/endpoint-auth.md#rotation), "verify in your code"
 * beside each signing secret, and Change links that open the form at their section; the shape and a
 * Change link at 390 px by keyboard, and at 1440 px.
 */
test.describe("at 390 px, by keyboard", () => {
  test.use({ viewport: PHONE });

  test("rotate the shared secret in its dialog: the new secret shown once, the old one valid until its end; verify it in Node, Python or Go", async ({
    page,
  }) => {
    const dest = await api(page, "POST", "/api/destinations", {
      name: "Rotation story hooks",
      urls: ["https://example.com/hooks/orders"],
      sharedSecret: "old-shared-secret-0123456789",
      standardWebhooks: true,
    });
    await page.goto(`/destinations/${dest.id}`);
    await expect(page.getByRole("heading", { name: "Rotation story hooks", exact: true })).toBeVisible();

    // Its shape, a line per setting, on a phone too (issue 52 item 5).
    const config = page.getByTestId("configuration");
    const row = (label: string) => config.locator(":scope > div").filter({ has: page.locator("dt > span", { hasText: label }) });
    await expect(row("Method")).toContainText("POST");
    await expect(row("Body")).toContainText("Default body (the call as received)");
    await expect(row("Batching")).toContainText("Off: one event per request");
    await expect(row("Rate limit")).toContainText("None");
    await expect(row("Ordering")).toContainText("Off: each message goes as soon as it can");
    await expect(row("Signing")).toContainText("X-Signature");
    await expect(row("Signing")).toContainText("Standard Webhooks");

    // The dialog opens on the secret it will rotate; arrow keys choose another, and back.
    const open = page.getByRole("button", { name: "Rotate secret" });
    await tabTo(page, open);
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Rotate a secret" });
    await expect(dialog).toBeVisible();
    const shared = dialog.getByRole("radio", { name: /X-Signature shared secret/ });
    await expect(shared).toBeFocused();
    await expect(shared).toBeChecked();
    await expect(dialog.getByText("current ••••6789 · a new one is generated")).toBeVisible();
    await page.keyboard.press("ArrowDown");
    await expect(dialog.getByRole("radio", { name: /Standard Webhooks secret/ })).toBeChecked();
    await page.keyboard.press("ArrowUp");
    await expect(shared).toBeChecked();
    // The grace period, by arrow keys: from the default 24 hours to 7 days, then down to 1 hour.
    await tabTo(page, dialog.getByRole("radio", { name: "24 hours" }));
    await page.keyboard.press("ArrowRight");
    await expect(dialog.getByRole("radio", { name: "7 days" })).toBeChecked();
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("ArrowLeft");
    await expect(dialog.getByRole("radio", { name: "1 hour" })).toBeChecked();
    await expect(dialog.getByText("For 1 hour, both secrets sign, so your receiver can switch")).toBeVisible();
    await expectAccessible(page, "rotate secret dialog at 390 px");
    await shot(page, "rotate-secret-dialog", { nav: false });
    await dialog.screenshot({ path: `${ARTIFACTS}/rotate-secret-dialog-close-phone.png` });

    await tabTo(page, dialog.getByRole("button", { name: "Rotate shared secret" }));
    await page.keyboard.press("Enter");

    // The result, focused: the new secret this once, and which secret works until when.
    const result = dialog.getByRole("status", { name: "Rotation result" });
    await expect(result).toBeFocused();
    const value = (await result.getByTestId("new-secret").textContent())!;
    expect(value).toMatch(/^[0-9a-f]{48}$/);
    const valid = result.getByRole("list", { name: "Valid secrets" });
    await expect(valid.getByRole("listitem").first()).toHaveText(
      `New ••••${value.slice(-4)}: valid now; it signs X-Signature-Next from the next request, and X-Signature once the old one ends.`,
    );
    await expect(valid.getByTestId("old-secret-until")).toContainText("Old ••••6789: valid until");
    await expect(valid.getByTestId("old-secret-until")).toContainText("(1 hour); it still signs X-Signature meanwhile.");
    await expect(result.getByRole("button", { name: "Copy the new secret" })).toBeVisible();
    await expectAccessible(page, "rotate secret dialog's result at 390 px");
    await shot(page, "rotate-secret-result", { nav: false });
    await dialog.screenshot({ path: `${ARTIFACTS}/rotate-secret-result-dialog-phone.png` });
    await tabTo(page, dialog.getByRole("button", { name: "Done" }));
    await page.keyboard.press("Enter");
    await expect(dialog).toBeHidden();
    await expect(open).toBeFocused();

    // The page counts the old secret's time down.
    const grace = page.getByTestId("sharedSecret-grace");
    await expect(grace).toContainText("the old shared secret ••••6789 still signs X-Signature for");
    await expect(grace).toContainText(/for 5\d min \d+ s/);

    // Verify in your code: a disclosure, then tabs moved by arrow keys, Home and End.
    const verify = page.locator("summary", { hasText: "Verify X-Signature in your code" });
    await tabTo(page, verify);
    await page.keyboard.press("Enter");
    const tabs = page.getByRole("tablist", { name: "Verify X-Signature in" });
    await tabTo(page, tabs.getByRole("tab", { name: "Node" }));
    const panel = page.getByRole("tabpanel", { name: "Node" });
    await expect(panel).toContainText("function verifyXSignature(secret, rawBody, headers)");
    await page.keyboard.press("ArrowRight");
    await expect(tabs.getByRole("tab", { name: "Python" })).toBeFocused();
    await expect(tabs.getByRole("tab", { name: "Python" })).toHaveAttribute("aria-selected", "true");
    await expect(page.getByRole("tabpanel", { name: "Python" })).toContainText(
      "def verify_x_signature(secret: str, raw_body: bytes, headers)",
    );
    await page.keyboard.press("End");
    await expect(page.getByRole("tabpanel", { name: "Go" })).toContainText(
      "func verifyXSignature(secret string, raw []byte, h http.Header) bool",
    );
    await page.keyboard.press("Home");
    await expect(tabs.getByRole("tab", { name: "Node" })).toBeFocused();
    // Then the copy button, then the panel itself: a keyboard can scroll the code sideways.
    await page.keyboard.press("Tab");
    await expect(page.getByRole("button", { name: "Copy the Node code" })).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(page.getByRole("tabpanel", { name: "Node" })).toBeFocused();
    await page.locator("summary", { hasText: "Verify Standard Webhooks in your code" }).click();
    await expect(page.getByRole("tabpanel", { name: "Node" }).nth(1)).toContainText("function verifyStandardWebhooks(");
    await expectNoHorizontalOverflow(page);
    await expectAccessible(page, "destination page with its secrets at 390 px");
    await shot(page, "destination-secrets");

    // Never again: not after a reload, not in the API; the form keeps no rotation of its own.
    await page.reload();
    await expect(page.getByTestId("sharedSecret-grace")).toBeVisible();
    await expect(page.getByText(value)).toHaveCount(0);
    const saved = await api(page, "GET", `/api/destinations/${dest.id}`);
    expect(JSON.stringify(saved)).not.toContain(value);
    expect(saved.previousSharedSecret).toMatchObject({ last4: "6789" });
    expect(saved.sharedSecret.last4).toBe(value.slice(-4));
    // Its Change link, by keyboard, opens the form at Signing with the heading focused.
    await tabTo(page, page.getByRole("link", { name: "Change signing" }), { max: 200 });
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(new RegExp(`/destinations/${dest.id}/edit#signing$`));
    await expect(page.getByRole("heading", { name: "Signing", exact: true })).toBeFocused();
    await expect(page.getByRole("note", { name: "Shared secret" })).toHaveText(`set · ••••${value.slice(-4)}`);
    await expect(page.locator("summary", { hasText: "Rotate a secret" })).toHaveCount(0);
    await expect(page.getByText("To change a secret with time for your receiver to switch, use Rotate secret")).toBeVisible();

    // A test-send during the rotation, to a new capture URL, by keyboard: the capture page checks it at
    // once against this destination; the new secret, in X-Signature-Next beside the old one's
    // X-Signature, is the one that matches (issue 52 item 2, docs/signing.md#secret-rotation).
    await page.goto(`/destinations/${dest.id}`);
    await tabTo(page, page.getByRole("radio", { name: "This destination's URLs" }), { max: 200 });
    await page.keyboard.press("ArrowDown");
    await expect(page.getByRole("radio", { name: "A capture URL" })).toBeChecked();
    await tabTo(page, page.getByRole("button", { name: "New capture URL" }));
    await page.keyboard.press("Enter");
    await expect(page.getByLabel("Capture URL", { exact: true })).toBeFocused();
    await tabTo(page, page.getByRole("button", { name: "Send test track" }));
    await page.keyboard.press("Enter");
    await expect(page.getByRole("region", { name: "Test result" })).toBeFocused();
    await tabTo(page, page.getByRole("link", { name: "Watch it arrive →" }));
    await page.keyboard.press("Enter");
    const details = page.getByRole("region", { name: "Request details" });
    await expect(details.getByText("Checked against Rotation story hooks, which sent it")).toBeVisible();
    await expect(details).toContainText("X-Signature: HMAC-SHA1 of the body matches the destination's current shared secret");
    const binId = new URL(page.url()).pathname.split("/capture/")[1];
    const [captured] = (await api(page, "GET", `/api/capture-bins/${binId}/requests`)).requests;
    const { headers } = await api(page, "GET", `/api/capture-bins/${binId}/requests/${captured.id}`);
    expect(Object.keys(headers)).toEqual(expect.arrayContaining(["x-signature", "x-signature-next"]));
    await expect(details.getByLabel("Standard Webhooks verified")).toBeVisible();
    await expectAccessible(page, "capture during a rotation at 390 px");
    await shot(page, "capture-during-rotation");
  });
});

test.describe("at 1440 px", () => {
  test.use({ viewport: DESKTOP });

  test("the destination page shows its whole shape with links into the form, and rotates the OAuth2 client secret typed in", async ({
    page,
  }) => {
    const ca = makeCa("Rotation story CA");
    const cert = issue(ca, "rotation-client", "client", 30);
    const dest = await api(page, "POST", "/api/destinations", {
      name: "Shaped hooks",
      urls: ["https://api.example.com/users/{{userId}}"],
      method: "PUT",
      mapping: { email: { "@path": "$.traits.email" }, plan: "pro" },
      rateLimit: { perSecond: 20, concurrency: 4 },
      ordering: "perUser",
      maxHoldMinutes: 15,
      auth: {
        type: "oauth2",
        tokenUrl: "https://auth.example.com/oauth/token",
        clientId: "eventrail-hooks",
        clientSecret: "client-secret-old-0123456789",
        method: "client_secret_post",
      },
      tls: { clientCert: cert.cert, clientKey: cert.key },
    });
    await page.goto(`/destinations/${dest.id}`);
    await expect(page.getByRole("heading", { name: "Shaped hooks", exact: true })).toBeVisible();

    // Every setting in a line, "None"/"Off" where unset.
    const config = page.getByTestId("configuration");
    const row = (label: string) => config.locator(":scope > div").filter({ has: page.locator("dt > span", { hasText: label }) });
    await expect(row("Method")).toContainText("PUT");
    await expect(row("Body")).toContainText("Mapped into 2 fields: email, plan");
    await expect(row("URL templates")).toContainText("The URL is filled from each event");
    await expect(row("Batching")).toContainText("Off: one event per request");
    await expect(row("Rate limit")).toContainText("At most 20 per second, 4 at once");
    await expect(row("Ordering")).toContainText("Per user: a user's message waits for their earlier ones (at most 15 minutes)");
    await expect(row("Headers")).toContainText("None");
    await expect(row("Signing")).toContainText("None: unsigned");
    await expect(row("OAuth2")).toContainText("Token URL:https://auth.example.com/oauth/token");
    await expect(row("OAuth2")).toContainText("Client id:eventrail-hooks");
    await expect(row("OAuth2")).toContainText("Method:In the form body (client_secret_post)");
    await expect(row("mTLS")).toContainText("rotation-client");
    await expect(row("mTLS")).toContainText(/Expires:\d{4}-\d\d-\d\d \(in (29|30) days\)/);
    await expectAccessible(page, "destination page at 1440 px");
    await shot(page, "destination-shape");

    // A Change link opens the form at its section, its heading focused.
    await page.getByRole("link", { name: "Change batching" }).click();
    await expect(page).toHaveURL(new RegExp(`/destinations/${dest.id}/edit#batching$`));
    await expect(page.getByRole("heading", { name: "Batching", exact: true })).toBeFocused();
    await shot(page, "destination-edit-at-batching");
    await page.goBack();
    await expect(page.getByRole("heading", { name: "Shaped hooks", exact: true })).toBeVisible();
    await tabTo(page, page.getByRole("link", { name: "Change rate limit" }), { max: 200 });
    await page.keyboard.press("Enter");
    await expect(page.getByRole("heading", { name: "Rate limit", exact: true })).toBeFocused();
    await page.goto(`/destinations/${dest.id}`);

    // The client secret is typed in (the authorization server issues it), with the same grace choices.
    await page.getByRole("button", { name: "Rotate secret" }).click();
    const dialog = page.getByRole("dialog", { name: "Rotate a secret" });
    await expect(dialog.getByRole("radio", { name: /OAuth2 client secret/ })).toBeChecked();
    await expect(dialog.getByText("current ••••6789 · you type the new one in")).toBeVisible();
    await dialog.getByRole("button", { name: "Rotate client secret" }).click();
    await expect(dialog.getByLabel("New client secret", { exact: true })).toBeFocused();
    await expect(dialog.getByLabel("New client secret", { exact: true })).toHaveAccessibleDescription(
      /Enter the new client secret your authorization server issued/,
    );
    await dialog.getByLabel("New client secret", { exact: true }).fill("client-secret-new-9876543210");
    await dialog.getByRole("radio", { name: "1 hour" }).check();
    await expect(
      dialog.getByText("For 1 hour, the current client secret is tried when the token endpoint refuses the new one"),
    ).toBeVisible();
    await expectAccessible(page, "rotate client secret dialog at 1440 px");
    await shot(page, "rotate-client-secret-dialog");
    await dialog.getByRole("button", { name: "Rotate client secret" }).click();

    const result = dialog.getByRole("status", { name: "Rotation result" });
    await expect(result).toContainText("The client secret is rotated.");
    // Typed in, so not shown back.
    await expect(result.getByTestId("new-secret")).toHaveCount(0);
    await expect(result).not.toContainText("client-secret-new-9876543210");
    await expect(result.getByRole("listitem").first()).toHaveText(
      "New ••••3210: valid now; it is sent to the token endpoint from the next token request.",
    );
    await expect(result.getByTestId("old-secret-until")).toContainText("Old ••••6789: valid until");
    await expect(result.getByTestId("old-secret-until")).toContainText(
      "(1 hour); it is tried only when the token endpoint refuses the new one meanwhile.",
    );
    await expectAccessible(page, "rotate client secret result at 1440 px");
    await shot(page, "rotate-client-secret-result");
    await dialog.getByRole("button", { name: "Done" }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId("authClientSecret-grace")).toContainText("the old client secret ••••6789");

    const saved = await api(page, "GET", `/api/destinations/${dest.id}`);
    expect(saved.auth).toMatchObject({ clientSecret: { set: true, last4: "3210" }, previousClientSecret: { last4: "6789" } });
    expect((await api(page, "POST", `/api/destinations/${dest.id}/reveal`, { secret: "authClientSecret" })).value).toBe(
      "client-secret-new-9876543210",
    );

    // The client certificate and key (docs/endpoint-auth.md#certificate-rotation): pasted in, from the user's CA.
    const renewed = issue(ca, "rotation-client-2", "client", 90);
    await page.getByRole("button", { name: "Rotate secret" }).click();
    await dialog.getByRole("radio", { name: /mTLS client certificate and key/ }).check();
    await expect(dialog.getByText("current CN=rotation-client · you paste the new pair in")).toBeVisible();
    // A key that is not the certificate's is refused at its field, which takes focus.
    await dialog.getByLabel("New client certificate (PEM)").fill(renewed.cert);
    await dialog.getByLabel("Its private key (PEM)").fill(cert.key);
    await dialog.getByRole("radio", { name: "1 hour" }).check();
    await dialog.getByRole("button", { name: "Rotate client certificate" }).click();
    await expect(dialog.getByLabel("Its private key (PEM)")).toBeFocused();
    await expect(dialog.getByLabel("Its private key (PEM)")).toHaveAccessibleDescription(/This key is not the client certificate's/);
    await dialog.getByLabel("Its private key (PEM)").fill(renewed.key);
    await expectAccessible(page, "rotate client certificate dialog at 1440 px");
    await dialog.getByRole("button", { name: "Rotate client certificate" }).click();
    await expect(result).toContainText("The client certificate is rotated.");
    await expect(result.getByRole("listitem").first()).toHaveText(
      "New CN=rotation-client-2: valid now; it is presented from the next connection.",
    );
    await expect(result.getByTestId("old-secret-until")).toContainText("Old CN=rotation-client: valid until");
    await shot(page, "rotate-client-certificate-result");
    await dialog.getByRole("button", { name: "Done" }).click();
    await expect(page.getByTestId("tlsClientKey-grace")).toContainText("the old client certificate CN=rotation-client");
    expect((await api(page, "GET", `/api/destinations/${dest.id}`)).tls).toMatchObject({
      subject: "CN=rotation-client-2",
      previous: { subject: "CN=rotation-client" },
    });
  });
});
