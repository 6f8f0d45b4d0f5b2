/**
 * The Access columns of the spec, as a table: role × endpoint → expected status, over real HTTP.
 * Covers every endpoint of the core emulator (E1-E4, E6, E9, E13-E27, E29, E30), including
 * orgAdminAccess false (database 2002), parent org admins (key and user), 404 before 403 for
 * a missing organization or database, and 403 before 404 for a member or user within one.
 * Then what the lists hold for each role.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { api, useEmulator } from "../support/emulatorHttp";

/** Column order of the table. */
const ROLES = [
  "orgAdmin", //        OA  user, ORG_ADMIN of 102 Northwind Legal
  "orgKey", //          OK  organization key of 102
  "parentOrgAdmin", //  PK  organization key of 101 (parent of 102 and 103)
  "parentAdminUser", // PU  user, ORG_ADMIN of 101 and plain member of 102
  "subOrgAdmin", //     SA  user, ORG_ADMIN of 103 (sibling of 102)
  "member", //          M   user, plain member of 102, user of project 3001
  "databaseAdmin", //   DA  user, member of 102, DB_ADMIN on 2002 (orgAdminAccess false)
  "legalHoldAdmin", //  LH  user, LEGAL_HOLD_ADMIN of 102
  "otherOrgAdmin", //   XA  user, ORG_ADMIN of 104 (unrelated)
  "noAccess", //        NA  user, plain member of 104
] as const;

const ALL_200 = "200 200 200 200 200 200 200 200 200 200";
const ALL_404 = "404 404 404 404 404 404 404 404 404 404";
/** Org admin of 102 only (E13-E15, E17-E22). */
const ORG_ADMIN_ONLY = (ok: number) => `${ok} ${ok} 403 403 403 403 403 403 403 403`;
/** Org admin or parent org admin of 102 (E9, E16). */
const ORG_OR_PARENT = "200 200 200 200 403 403 403 403 403 403";

interface Row {
  what: string;
  method: string;
  path: string;
  body?: unknown;
  /** Expected statuses in ROLES order. */
  expect: string;
}

const ROWS: Row[] = [
  { what: "E1 list databases", method: "GET", path: "/v1/databases", expect: ALL_200 },
  { what: "E2 current user", method: "GET", path: "/v1/users/me", expect: ALL_200 },
  { what: "E3 list organizations", method: "GET", path: "/v1/organizations", expect: ALL_200 },
  { what: "E4 list projects", method: "GET", path: "/v1/projects", expect: ALL_200 },

  { what: "E6 get organization 102", method: "GET", path: "/v1/organizations/102", expect: "200 200 200 200 403 200 200 200 403 403" },
  {
    what: "E6 get sub-organization 103 (parent admins)",
    method: "GET",
    path: "/v1/organizations/103",
    expect: "403 403 200 200 200 403 403 403 403 403",
  },
  { what: "E6 missing organization: 404 for everyone", method: "GET", path: "/v1/organizations/999", expect: ALL_404 },

  { what: "E9 organization databases", method: "GET", path: "/v1/organizations/102/databases", expect: ORG_OR_PARENT },
  {
    what: "E9 databases of the parent itself",
    method: "GET",
    path: "/v1/organizations/101/databases",
    expect: "403 403 200 200 403 403 403 403 403 403",
  },
  { what: "E16 organization projects", method: "GET", path: "/v1/organizations/102/projects", expect: ORG_OR_PARENT },
  { what: "E17 user identifiers", method: "GET", path: "/v1/organizations/102/userIdentifiers", expect: ORG_ADMIN_ONLY(200) },

  { what: "E18 list members", method: "GET", path: "/v1/organizations/102/users", expect: ORG_ADMIN_ONLY(200) },
  { what: "E18 missing organization", method: "GET", path: "/v1/organizations/999/users", expect: ALL_404 },
  {
    what: "E19 add users",
    method: "POST",
    path: "/v1/organizations/102/users",
    body: { users: [{ email: "someone.new@example.com", firstName: "Some", lastName: "One" }] },
    expect: ORG_ADMIN_ONLY(200),
  },
  { what: "E20 remove member", method: "DELETE", path: "/v1/organizations/102/users/1003", expect: ORG_ADMIN_ONLY(204) },
  {
    what: "E20 remove a non-member: 403 first, 404 for admins",
    method: "DELETE",
    path: "/v1/organizations/102/users/9999",
    expect: ORG_ADMIN_ONLY(404),
  },
  { what: "E21 get member", method: "GET", path: "/v1/organizations/102/users/1003", expect: ORG_ADMIN_ONLY(200) },
  { what: "E21 get a non-member", method: "GET", path: "/v1/organizations/102/users/9999", expect: ORG_ADMIN_ONLY(404) },
  {
    what: "E22 update member",
    method: "PATCH",
    path: "/v1/organizations/102/users/1003",
    body: { organizationPermissions: ["AI_ADMIN"] },
    expect: ORG_ADMIN_ONLY(200),
  },

  {
    what: "E13 delete invitation",
    method: "DELETE",
    path: "/v1/organizations/102/invitations",
    body: { email: "new.hire@northwind.example" },
    expect: ORG_ADMIN_ONLY(204),
  },
  {
    what: "E13 delete a missing invitation",
    method: "DELETE",
    path: "/v1/organizations/102/invitations",
    body: { email: "nobody@example.com" },
    expect: ORG_ADMIN_ONLY(404),
  },
  { what: "E14 list invitations", method: "GET", path: "/v1/organizations/102/invitations", expect: ORG_ADMIN_ONLY(200) },
  {
    what: "E15 resend invitation",
    method: "POST",
    path: "/v1/organizations/102/invitations/resend",
    body: { email: "new.hire@northwind.example" },
    expect: ORG_ADMIN_ONLY(200),
  },

  {
    what: "E23 database users, org admin access on",
    method: "GET",
    path: "/v1/databases/2001/users",
    expect: "200 200 403 403 403 403 403 403 403 403",
  },
  {
    what: "E23 database users, org admin access OFF",
    method: "GET",
    path: "/v1/databases/2002/users",
    expect: "403 403 403 403 403 403 200 403 403 403",
  },
  { what: "E23 missing database", method: "GET", path: "/v1/databases/9999/users", expect: ALL_404 },
  {
    what: "E24 remove database user (on)",
    method: "DELETE",
    path: "/v1/databases/2001/users/1007",
    expect: "204 204 403 403 403 403 403 403 403 403",
  },
  {
    what: "E24 remove database user (OFF)",
    method: "DELETE",
    path: "/v1/databases/2002/users/1004",
    expect: "403 403 403 403 403 403 204 403 403 403",
  },
  {
    what: "E24 remove a user without permissions",
    method: "DELETE",
    path: "/v1/databases/2001/users/1003",
    expect: "404 404 403 403 403 403 403 403 403 403",
  },
  {
    what: "E25 get database user (on)",
    method: "GET",
    path: "/v1/databases/2001/users/1007",
    expect: "200 200 403 403 403 403 403 403 403 403",
  },
  {
    what: "E25 get database user (OFF)",
    method: "GET",
    path: "/v1/databases/2002/users/1004",
    expect: "403 403 403 403 403 403 200 403 403 403",
  },
  {
    what: "E26 set database user (on)",
    method: "PUT",
    path: "/v1/databases/2001/users/1003",
    body: { databasePermissions: ["DB_UPLOAD"] },
    expect: "200 200 403 403 403 403 403 403 403 403",
  },
  {
    what: "E26 set database user (OFF)",
    method: "PUT",
    path: "/v1/databases/2002/users/1003",
    body: { databasePermissions: ["DB_UPLOAD"] },
    expect: "403 403 403 403 403 403 200 403 403 403",
  },
  {
    what: "E26 set an unknown user",
    method: "PUT",
    path: "/v1/databases/2001/users/9999",
    body: { databasePermissions: ["DB_UPLOAD"] },
    expect: "404 404 403 403 403 403 403 403 403 403",
  },

  { what: "E27 get database (on)", method: "GET", path: "/v1/databases/2001", expect: "200 200 200 200 403 403 403 403 403 403" },
  {
    what: "E27 get database (OFF): summary stays for org admins",
    method: "GET",
    path: "/v1/databases/2002",
    expect: "200 200 200 200 403 403 200 403 403 403",
  },
  { what: "E27 missing database", method: "GET", path: "/v1/databases/9999", expect: ALL_404 },
  {
    what: "E29 database projects (OFF)",
    method: "GET",
    path: "/v1/databases/2002/projects",
    expect: "200 200 200 200 403 403 200 403 403 403",
  },
  {
    what: "E29 projects of a sub-organization's database",
    method: "GET",
    path: "/v1/databases/2003/projects",
    expect: "403 403 200 200 200 403 403 403 403 403",
  },
  { what: "E30 database size (OFF)", method: "GET", path: "/v1/databases/2002/size", expect: "200 200 200 200 403 403 200 403 403 403" },
  {
    what: "E30 database size (other organization's)",
    method: "GET",
    path: "/v1/databases/2004/size",
    expect: "403 403 403 403 403 403 403 403 200 403",
  },
];

// Rate limits off: the table sends hundreds of requests per key within a second or two.
const emu = useEmulator();

describe("access table: role × endpoint → status", () => {
  it.each(ROWS)("$what: $method $path", async (row) => {
    const got: number[] = [];
    for (const role of ROLES) {
      // A change made by one role must not decide the next role's answer: same world for each.
      if (row.method !== "GET") emu.reset();
      got.push((await api(emu.url, emu.keys[role], row.method, row.path, row.body)).status);
    }
    const labelled = (statuses: (number | string)[]) => ROLES.map((r, i) => `${r}=${statuses[i]}`).join(" ");
    expect(labelled(got)).toBe(labelled(row.expect.split(" ")));
  });
});

describe("what each role sees (of the seeded world: these tests only read)", () => {
  beforeAll(() => {
    emu.reset();
  });
  const ids = async (role: string, path: string) => {
    const res = await api(emu.url, emu.keys[role], "GET", path);
    expect(res.status).toBe(200);
    return (res.body.data as { id: number }[]).map((x) => x.id);
  };

  it("E1 lists databases with DB_ADMIN or owned by an organization the caller is org admin of", async () => {
    expect(await ids("orgAdmin", "/v1/databases")).toEqual([2001, 2002]);
    expect(await ids("orgKey", "/v1/databases")).toEqual([2001, 2002]);
    expect(await ids("databaseAdmin", "/v1/databases")).toEqual([2002]);
    expect(await ids("parentOrgAdmin", "/v1/databases")).toEqual([2005]);
    expect(await ids("otherOrgAdmin", "/v1/databases")).toEqual([2004]);
    expect(await ids("member", "/v1/databases")).toEqual([]);
  });

  it("E3 always includes the caller's organizations and their sub-organizations", async () => {
    expect(await ids("orgAdmin", "/v1/organizations")).toEqual([102]);
    expect(await ids("parentOrgAdmin", "/v1/organizations")).toEqual([101, 102, 103]);
    expect(await ids("parentAdminUser", "/v1/organizations")).toEqual([101, 102, 103]);
    expect(await ids("multiOrgMember", "/v1/organizations")).toEqual([102, 103]);
    expect(await ids("unaffiliated", "/v1/organizations")).toEqual([]);
  });

  it("E4 lists the projects the caller can access; orgAdminAccess false hides that database's projects from org admins", async () => {
    expect(await ids("member", "/v1/projects")).toEqual([3001]);
    expect(await ids("orgAdmin", "/v1/projects")).toEqual([3001, 3002, 3003]);
    expect(await ids("orgKey", "/v1/projects")).toEqual([3001, 3002, 3003]);
    expect(await ids("databaseAdmin", "/v1/projects")).toEqual([3004, 3005]);
    expect(await ids("noAccess", "/v1/projects")).toEqual([3007]);
  });

  it("E16 lists every project of the organization (summary), E29 adds emailThreadingStatus and lastLogin", async () => {
    expect(await ids("orgAdmin", "/v1/organizations/102/projects")).toEqual([3001, 3002, 3003, 3004, 3005]);
    const org = await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/organizations/102/projects");
    expect(org.body.data[0]).not.toHaveProperty("emailThreadingStatus");
    const db = await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/databases/2002/projects");
    expect(db.body.data.map((p: any) => [p.id, p.suspended, p.emailThreadingStatus])).toEqual([
      [3004, false, "IN_PROGRESS"],
      [3005, true, "IN_PROGRESS"],
    ]);
    expect(db.body.data[0].database).toMatchObject({ id: 2002, orgAdminAccess: false, owningOrganizationId: 102, context: "PLATFORM" });
    expect(typeof db.body.data[0].lastLogin).toBe("string");
  });

  it("E2 answers an organization key with its own identity, org admin of its organization", async () => {
    const me = await api(emu.url, emu.keys.orgKey, "GET", "/v1/users/me");
    expect(me.body.data.organizations).toEqual([{ id: 102, name: "Northwind Legal", orgAdmin: true }]);
    const ada = await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/users/me");
    expect(ada.body.data).toMatchObject({ id: 1001, email: "ada@northwind.example", primaryOrganization: 102, mfaRequired: false });
  });

  it("E17 lists the distinct identifiers of the members", async () => {
    const res = await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/organizations/102/userIdentifiers");
    expect(res.body.data.map((i: any) => i.abbreviation)).toEqual(["AL", "AT", "KT", "MH"]);
  });

  it("E30 gives counts and sizes per kind of document", async () => {
    const res = await api(emu.url, emu.keys.orgAdmin, "GET", "/v1/databases/2001/size");
    for (const kind of ["nativeDocs", "processedDocs", "producedDocs"]) {
      expect(Object.keys(res.body.data[kind]).sort()).toEqual(["docCount", "imageSize", "nativeSize", "textSize"]);
    }
  });
});
