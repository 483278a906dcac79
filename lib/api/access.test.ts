import { describe, expect, it } from "vitest";
import { accessRefusal, roleAllows } from "./access";

describe("roleAllows", () => {
  it("ranks viewer < admin < owner and lets nobody past operator by role", () => {
    expect(roleAllows("viewer", "viewer")).toBe(true);
    expect(roleAllows("viewer", "admin")).toBe(false);
    expect(roleAllows("admin", "admin")).toBe(true);
    expect(roleAllows("admin", "owner")).toBe(false);
    expect(roleAllows("owner", "owner")).toBe(true);
    expect(roleAllows("owner", "operator")).toBe(false);
    expect(roleAllows("viewer", "public")).toBe(true);
  });
});

describe("accessRefusal", () => {
  it("says why, in the caller's terms", () => {
    expect(accessRefusal({ role: "viewer", via: "session" }, { access: "admin" })).toMatch(/needs the admin role; you are a viewer/);
    expect(accessRefusal({ role: "admin", via: "session" }, { access: "owner" })).toMatch(/Only an owner.*you are an admin/);
    expect(accessRefusal({ role: "viewer", via: "read-token" }, { access: "admin" })).toMatch(/read-only/);
    expect(accessRefusal({ role: "admin", via: "full-token" }, { access: "owner" })).toMatch(/only an owner, logged in/);
    expect(accessRefusal({ role: "owner", via: "session" }, { access: "operator" })).toMatch(/operator/);
    expect(accessRefusal({ role: "owner", via: "operator" }, { access: "owner" })).toBeNull();
    expect(accessRefusal({ role: "admin", via: "full-token" }, { access: "admin" })).toBeNull();
    expect(accessRefusal({ role: "viewer", via: "session" }, { access: "account" })).toBeNull();
    expect(accessRefusal({ role: "admin", via: "full-token" }, { access: "account" })).toMatch(/your own account/);
    expect(accessRefusal({ role: "owner", via: "operator" }, { access: "account" })).toMatch(/your own account/);
  });
});
