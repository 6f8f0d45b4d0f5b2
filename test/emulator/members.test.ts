/**
 * Behaviour of the membership, invitation and database-user endpoints (E13-E15, E18-E26),
 * driven through the project client so every answer is also checked against the route
 * table's schemas.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiError, ReviewAdminClient } from "../../provider/client";
import { control, useEmulator } from "../support/emulatorHttp";

const DAY = 86_400_000;
const emu = useEmulator();
let admin: ReviewAdminClient;

// Every test starts from the seeded world, with a client for its org admin.
beforeEach(() => {
  emu.reset();
  admin = new ReviewAdminClient({ baseUrl: emu.url, apiKey: emu.keys.orgAdmin, requestsPerSecond: 1000, burst: 100, retryBaseMs: 1 });
});
afterEach(() => admin.close());

/** The ApiError a call rejects with. */
async function failure(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

const orgId = 102;

describe("E19 add users", () => {
  it("adds existing users, invites new emails, reports unparseable ones, and tolerates members and pending invitations", async () => {
    const before = await admin.call("GetOrganizationInvitations", { orgId });
    const result = await admin.call(
      "PostOrganizationUsers",
      { orgId },
      {
        permissions: ["LEGAL_HOLD_ADMIN"],
        users: [
          { email: "LINUS@Example.com", firstName: "Linus", lastName: "Torvalds" }, // platform user, not a member: added
          { email: "brand.new@example.com", firstName: "Brand", lastName: "New" }, // nobody: invited
          { email: "not an email", firstName: "X", lastName: "Y" }, // unparseable
          { email: "alan@northwind.example", firstName: "Alan", lastName: "Turing" }, // already a member: returned as is
          { email: "New.Hire@northwind.example", firstName: "New", lastName: "Hire" }, // pending invitation: returned, not duplicated
        ],
      },
    );
    expect(result.invalid).toEqual(["not an email"]);
    expect(result.users.map((u) => [u.id, u.permissions])).toEqual([
      [1011, ["LEGAL_HOLD_ADMIN"]],
      [1003, []],
    ]);
    expect(result.invites.map((i) => [i.email, i.expired, i.organizationPermissions])).toEqual([
      ["brand.new@example.com", false, ["LEGAL_HOLD_ADMIN"]],
      ["new.hire@northwind.example", false, []],
    ]);
    const fresh = result.invites[0];
    expect(Date.parse(fresh.expiration) - emu.store.clock.now()).toBeGreaterThan(14 * DAY - 60_000);
    expect(fresh).toMatchObject({ invitedBy: 1001, organizationId: orgId, firstName: "Brand", lastName: "New" });

    const after = await admin.call("GetOrganizationInvitations", { orgId });
    expect(after.invitations.length).toBe(before.invitations.length + 1);
    expect((await admin.call("GetOrganizationUser", { orgId, userId: 1011 })).email).toBe("linus@example.com");

    // The changes are in the activity log, with the caller as actor.
    const recent = await admin.call("GetRecentOrganizationEvents", { orgId, limit: 2 });
    expect(recent.events.map((e) => [e.type, e.userId])).toEqual([
      ["USER_ADDED", 1001],
      ["INVITATION_SENT", 1001],
    ]);
  });
});

describe("E18, E20, E21, E22 members", () => {
  it("lists every member across pages with the client", async () => {
    await control(emu.url, "POST", "/scale", { organizationId: orgId, members: 450 });
    const all = await admin.listAll("GetOrganizationUsers", { orgId, limit: 200 });
    expect(all.length).toBe(457);
    const counters = (await control(emu.url, "GET", "/requests")).body.data.counters;
    expect(counters.byOperation.GetOrganizationUsers.total).toBeGreaterThanOrEqual(3);
  });

  it("E22 changes only the fields given", async () => {
    const identifiers = [{ abbreviation: "AT", label: "Alan Turing" }];
    const onlyPermissions = await admin.call(
      "PatchOrganizationUser",
      { orgId, userId: 1003 },
      { organizationPermissions: ["AI_ADMIN", "ORG_ADMIN"] },
    );
    expect(onlyPermissions.permissions).toEqual(["AI_ADMIN", "ORG_ADMIN"]);
    expect(onlyPermissions.userIdentifiers).toEqual(identifiers);
    const onlyIdentifiers = await admin.call("PatchOrganizationUser", { orgId, userId: 1003 }, { userIdentifiers: [] });
    expect(onlyIdentifiers.permissions).toEqual(["AI_ADMIN", "ORG_ADMIN"]);
    expect(onlyIdentifiers.userIdentifiers).toEqual([]);
    const nothing = await admin.call("PatchOrganizationUser", { orgId, userId: 1003 }, {});
    expect(nothing.permissions).toEqual(["AI_ADMIN", "ORG_ADMIN"]);
    // The new org admin's own key now manages members.
    expect(onlyPermissions.organizations).toEqual([{ id: orgId, name: "Northwind Legal", orgAdmin: true }]);
  });

  it("E20 removes the member from the organization and its projects; a second time is 404 {message}", async () => {
    const member = new ReviewAdminClient({ baseUrl: emu.url, apiKey: emu.keys.member, requestsPerSecond: 1000, burst: 100 });
    try {
      expect((await member.listAll("GetProjects", {})).map((p) => p.id)).toEqual([3001]);
      await admin.call("DeleteOrganizationUser", { orgId, userId: 1003 });
      expect(await member.listAll("GetProjects", {})).toEqual([]);
      expect((await failure(admin.call("GetOrganizationUser", { orgId, userId: 1003 }))).status).toBe(404);
      const again = await failure(admin.call("DeleteOrganizationUser", { orgId, userId: 1003 }));
      expect(again.status).toBe(404);
      expect(again.serviceMessage).toContain("1003");
      expect((await member.call("GetCurrentUser", {})).organizations).toEqual([]);
    } finally {
      await member.close();
    }
  });
});

describe("E13, E14, E15 invitations", () => {
  it("lists pending and expired invitations by the emulator's clock", async () => {
    const list = await admin.call("GetOrganizationInvitations", { orgId });
    expect(list.invitations.map((i) => [i.email, i.expired])).toEqual([
      ["new.hire@northwind.example", false],
      ["late.joiner@northwind.example", true],
    ]);
    await control(emu.url, "POST", "/clock", { advanceDays: 13 });
    const later = await admin.call("GetOrganizationInvitations", { orgId });
    expect(later.invitations.every((i) => i.expired)).toBe(true);
  });

  it("E15 resets the expiration to 14 days from now", async () => {
    const resent = await admin.call("PostOrganizationInvitationResend", { orgId }, { email: "LATE.JOINER@northwind.example" });
    expect(resent.expired).toBe(false);
    expect(Date.parse(resent.expiration) - emu.store.clock.now()).toBeGreaterThan(14 * DAY - 60_000);
    expect(resent.organizationPermissions).toEqual(["LEGAL_HOLD_ADMIN"]);
  });

  it("E13 deletes an invitation; deleting it again is 404 {message}", async () => {
    await admin.call("DeleteOrganizationInvitation", { orgId }, { email: "new.hire@northwind.example" });
    const emails = (await admin.call("GetOrganizationInvitations", { orgId })).invitations.map((i) => i.email);
    expect(emails).toEqual(["late.joiner@northwind.example"]);
    const again = await failure(admin.call("DeleteOrganizationInvitation", { orgId }, { email: "new.hire@northwind.example" }));
    expect(again.status).toBe(404);
    expect(again.serviceMessage).toBeDefined();
  });
});

describe("E23-E26 database users", () => {
  it("E26 overwrites, E25 reads, E24 removes, E23 lists", async () => {
    const db = 2001;
    const set = await admin.call("PutDatabaseUser", { databaseId: db, userId: 1003 }, { databasePermissions: ["DB_UPLOAD", "DB_DELETE"] });
    expect(set).toMatchObject({ active: true, permissions: ["DB_DELETE", "DB_UPLOAD"], user: { id: 1003, firstName: "Alan" } });
    const overwritten = await admin.call("PutDatabaseUser", { databaseId: db, userId: 1003 }, { databasePermissions: ["DB_LEGAL_HOLD"] });
    expect(overwritten.permissions).toEqual(["DB_LEGAL_HOLD"]);
    expect((await admin.call("GetDatabaseUser", { databaseId: db, userId: 1003 })).permissions).toEqual(["DB_LEGAL_HOLD"]);
    expect((await admin.listAll("GetDatabaseUsers", { databaseId: db })).map((u) => u.user.id)).toEqual([1003, 1007]);
    await admin.call("DeleteDatabaseUser", { databaseId: db, userId: 1003 });
    expect((await failure(admin.call("GetDatabaseUser", { databaseId: db, userId: 1003 }))).status).toBe(404);
    const again = await failure(admin.call("DeleteDatabaseUser", { databaseId: db, userId: 1003 }));
    expect(again.serviceMessage).toBeDefined();
  });

  it("E26 with no permissions removes the user from the list", async () => {
    const cleared = await admin.call("PutDatabaseUser", { databaseId: 2001, userId: 1007 }, { databasePermissions: [] });
    expect(cleared.permissions).toEqual([]);
    expect(await admin.listAll("GetDatabaseUsers", { databaseId: 2001 })).toEqual([]);
  });

  it("org admins lose database users when orgAdminAccess is turned off, and keep the summary", async () => {
    await control(emu.url, "PATCH", "/databases/2001", { orgAdminAccess: false });
    expect((await failure(admin.listAll("GetDatabaseUsers", { databaseId: 2001 }))).status).toBe(403);
    expect((await admin.call("GetDatabase", { databaseId: 2001 })).orgAdminAccess).toBe(false);
    expect((await admin.call("GetDatabaseSize", { databaseId: 2001 })).nativeDocs.docCount).toBeGreaterThan(0);
  });
});
