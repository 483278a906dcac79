import { expect, test } from "./fixtures";
import { api, createSource, sendBatch } from "./api";
import { expectAccessible, expectNoHorizontalOverflow, PHONE } from "./checks";

// The request-shape section of the destination form (docs/request-shape.md), at phone width and by keyboard.
test.use({ viewport: PHONE });

test("shape a destination's requests: method, a Segment mapping with its errors, and the preview, at 390 px by keyboard", async ({
  page,
}) => {
  const sourceName = "Signup service";
  const source = await createSource(page, sourceName);
  await sendBatch(page, source.writeKey, [{ type: "identify", userId: "zoë", traits: { email: "zoe@example.com", plan: "pro" } }]);

  await page.goto("/destinations/new");
  await page.getByLabel("Name", { exact: true }).fill("Users API");
  await page.getByLabel("URL 1", { exact: true }).fill("https://api.example.com/users/{{userId}}");
  await page.getByRole("checkbox", { name: sourceName }).check();

  // Method by keyboard: a native select.
  const method = page.getByLabel("Method", { exact: true });
  await method.focus();
  await page.keyboard.press("ArrowDown");
  await expect(method).toHaveValue("PUT");

  // A mapping with a mistake: refused at the directive at fault, focus on the field.
  const mapping = page.getByLabel("Body mapping (optional)");
  await mapping.fill('{"email": {"@path": 42}, "plan": {"@template": "{{traits.plan}}"}}');
  await page.getByRole("button", { name: "Create destination" }).click();
  await expect(mapping).toBeFocused();
  await expect(mapping).toHaveAccessibleDescription("At email.@path: Should be a string or a mapping directive, not a number");

  // Fixed: the preview renders the recent call's request as it would be sent.
  await mapping.fill('{"email": {"@path": "$.traits.email"}, "plan": {"@template": "{{traits.plan}}"}}');
  const preview = page.getByTestId("request-preview");
  await expect(preview).toContainText("PUT https://api.example.com/users/zo%C3%AB");
  await expect(preview).toContainText('{"email":"zoe@example.com","plan":"pro"}');
  await expectNoHorizontalOverflow(page);
  await expectAccessible(page, "destination form with request shape");

  await page.getByRole("button", { name: "Create destination" }).click();
  await expect(page).toHaveURL(/\/destinations\/[0-9a-f-]{36}$/);
  const id = page.url().split("/").pop();
  const saved = await api(page, "GET", `/api/destinations/${id}`);
  expect(saved).toMatchObject({
    method: "PUT",
    mapping: { email: { "@path": "$.traits.email" }, plan: { "@template": "{{traits.plan}}" } },
  });
});
