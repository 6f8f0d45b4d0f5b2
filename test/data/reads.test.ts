/**
 * The read data sources against the seeded emulator over loopback HTTP, each in its Promise and
 * Output forms, with their filters; and lists read to the end past 200 items.
 */
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import * as data from "../../provider/data";
import { SEEDED, addSyntheticMembers } from "../../emulator";
import { failure, useSeededEmulator, valueOf } from "./seededEmulator";

const s = useSeededEmulator();

describe("account data sources", () => {
  it("getCurrentUser reads the key's user, in both forms", async () => {
    const me = await data.getCurrentUser({}, s.as("orgAdmin"));
    expect(me.id).toBe(SEEDED.users.orgAdmin);
    expect(me.email).toBe("ada@northwind.example");
    expect(await valueOf(data.getCurrentUserOutput({}, s.as("orgAdmin")))).toEqual(me);
  });

  it("getOrganizations lists the key's organizations and sub-organizations, with filters", async () => {
    const all = await data.getOrganizations({}, s.as("parentOrgAdmin"));
    expect(all.ids).toEqual(expect.arrayContaining([SEEDED.parentOrg, SEEDED.org, SEEDED.subOrg]));
    expect(all.ids).not.toContain(SEEDED.otherOrg);
    const subs = await data.getOrganizations({ parentOrganizationId: SEEDED.parentOrg }, s.as("parentOrgAdmin"));
    expect(subs.ids).toEqual([SEEDED.org, SEEDED.subOrg]);
    expect((await data.getOrganizations({ isSubOrganization: false }, s.as("parentOrgAdmin"))).ids).toEqual([SEEDED.parentOrg]);
    expect((await data.getOrganizations({ nameContains: "LEGAL" }, s.as("parentOrgAdmin"))).ids).toEqual([SEEDED.org]);
    expect((await data.getOrganizations({ name: "Northwind" }, s.as("parentOrgAdmin"))).ids).toEqual([]);
    const out = await valueOf(
      data.getOrganizationsOutput({ parentOrganizationId: pulumi.output(SEEDED.parentOrg) }, s.as("parentOrgAdmin")),
    );
    expect(out).toEqual(subs);
  });

  it("getOrganization reads one organization, in both forms", async () => {
    const org = await data.getOrganization({ organizationId: SEEDED.org }, s.as("orgAdmin"));
    expect(org).toMatchObject({ id: SEEDED.org, name: "Northwind Legal", parentOrganizationId: SEEDED.parentOrg });
    expect(await valueOf(data.getOrganizationOutput({ organizationId: Promise.resolve(SEEDED.org) }, s.as("orgAdmin")))).toEqual(org);
  });
});

describe("database data sources", () => {
  it("getDatabases lists what the key administers, with filters", async () => {
    const all = await data.getDatabases({}, s.as("orgAdmin"));
    expect(all.ids).toEqual([SEEDED.databases.open, SEEDED.databases.restricted]);
    expect((await data.getDatabases({ orgAdminAccess: false }, s.as("orgAdmin"))).ids).toEqual([SEEDED.databases.restricted]);
    expect((await data.getDatabases({ organizationId: SEEDED.subOrg }, s.as("orgAdmin"))).ids).toEqual([]);
    expect((await data.getDatabases({}, s.as("databaseAdmin"))).ids).toEqual([SEEDED.databases.restricted]);
    expect(await valueOf(data.getDatabasesOutput({}, s.as("orgAdmin")))).toEqual(all);
  });

  it("getDatabase reads one database, in both forms", async () => {
    const db = await data.getDatabase({ databaseId: SEEDED.databases.open }, s.as("orgAdmin"));
    expect(db).toMatchObject({
      id: SEEDED.databases.open,
      name: "Northwind v. Contoso",
      orgAdminAccess: true,
      owningOrganizationId: SEEDED.org,
    });
    expect(await valueOf(data.getDatabaseOutput({ databaseId: SEEDED.databases.open }, s.as("orgAdmin")))).toEqual(db);
  });

  it("getOrganizationDatabases lists an organization's databases, with filters", async () => {
    const all = await data.getOrganizationDatabases({ organizationId: SEEDED.org }, s.as("orgAdmin"));
    expect(all.organizationId).toBe(SEEDED.org);
    expect(all.ids).toEqual([SEEDED.databases.open, SEEDED.databases.restricted]);
    const named = await data.getOrganizationDatabases({ organizationId: SEEDED.org, nameContains: "contoso" }, s.as("orgAdmin"));
    expect(named.ids).toEqual([SEEDED.databases.open]);
    expect(
      await valueOf(data.getOrganizationDatabasesOutput({ organizationId: SEEDED.org, nameContains: "contoso" }, s.as("orgAdmin"))),
    ).toEqual(named);
  });

  it("getDatabaseSize reads the document counts", async () => {
    const size = await data.getDatabaseSize({ databaseId: SEEDED.databases.open }, s.as("orgAdmin"));
    const stored = s.emu.store.databases.get(SEEDED.databases.open).size;
    expect(size).toMatchObject({ databaseId: SEEDED.databases.open, ...stored });
    expect(await valueOf(data.getDatabaseSizeOutput({ databaseId: SEEDED.databases.open }, s.as("orgAdmin")))).toEqual(size);
  });
});

describe("project data sources", () => {
  const p = SEEDED.projects;

  it("getProjects lists the projects the key can access, with filters", async () => {
    const all = await data.getProjects({}, s.as("orgAdmin"));
    // 2002 has orgAdminAccess off: its projects are not accessible to the org admin.
    expect(all.ids).toEqual([p.complete, p.partial, p.eca]);
    expect((await data.getProjects({ eca: true }, s.as("orgAdmin"))).ids).toEqual([p.eca]);
    expect((await data.getProjects({ nameContains: "privilege" }, s.as("orgAdmin"))).ids).toEqual([p.partial]);
    expect(await valueOf(data.getProjectsOutput({ eca: true }, s.as("orgAdmin")))).toEqual(
      await data.getProjects({ eca: true }, s.as("orgAdmin")),
    );
  });

  it("getOrganizationProjects lists every project of the organization, filtered by suspended, eca, partial", async () => {
    const all = await data.getOrganizationProjects({ organizationId: SEEDED.org }, s.as("orgAdmin"));
    expect(all.ids).toEqual([p.complete, p.partial, p.eca, p.restricted, p.suspended]);
    expect((await data.getOrganizationProjects({ organizationId: SEEDED.org, suspended: true }, s.as("orgAdmin"))).ids).toEqual([
      p.suspended,
    ]);
    expect(
      (await data.getOrganizationProjects({ organizationId: SEEDED.org, suspended: false, partial: false, eca: false }, s.as("orgAdmin")))
        .ids,
    ).toEqual([p.complete, p.restricted]);
    expect(
      (await data.getOrganizationProjects({ organizationId: SEEDED.org, databaseId: SEEDED.databases.restricted }, s.as("orgAdmin"))).ids,
    ).toEqual([p.restricted, p.suspended]);
    const out = await valueOf(data.getOrganizationProjectsOutput({ organizationId: SEEDED.org, partial: true }, s.as("orgAdmin")));
    expect(out.ids).toEqual([p.partial]);
  });

  it("getDatabaseProjects lists a database's projects with emailThreadingStatus", async () => {
    const all = await data.getDatabaseProjects({ databaseId: SEEDED.databases.open }, s.as("orgAdmin"));
    expect(all.ids).toEqual([p.complete, p.partial, p.eca]);
    expect(all.projects.every((x) => x.emailThreadingStatus === "IN_PROGRESS")).toBe(true);
    const out = await valueOf(data.getDatabaseProjectsOutput({ databaseId: SEEDED.databases.open, name: "nvc-eca" }, s.as("orgAdmin")));
    expect(out.ids).toEqual([p.eca]);
  });
});

describe("member data sources", () => {
  it("getOrganizationMembers lists members with permissions, with filters", async () => {
    const all = await data.getOrganizationMembers({ organizationId: SEEDED.org }, s.as("orgAdmin"));
    const stored = s.emu.store.members
      .of(SEEDED.org)
      .map((m) => m.userId)
      .sort((a, b) => a - b);
    expect([...all.ids].sort((a, b) => a - b)).toEqual(stored);
    expect((await data.getOrganizationMembers({ organizationId: SEEDED.org, permission: "ORG_ADMIN" }, s.as("orgAdmin"))).ids).toEqual([
      SEEDED.users.orgAdmin,
    ]);
    expect(
      (await data.getOrganizationMembers({ organizationId: SEEDED.org, email: "ALAN@northwind.example" }, s.as("orgAdmin"))).ids,
    ).toEqual([SEEDED.users.member]);
    expect((await data.getOrganizationMembers({ organizationId: SEEDED.org, nameContains: "hamil" }, s.as("orgAdmin"))).ids).toEqual([
      SEEDED.users.multiOrgMember,
    ]);
    expect((await data.getOrganizationMembers({ organizationId: SEEDED.org, userIdentifier: "KT" }, s.as("orgAdmin"))).ids).toEqual([
      SEEDED.users.aiAdmin,
    ]);
    const none = await data.getOrganizationMembers({ organizationId: SEEDED.org, noPermissions: true }, s.as("orgAdmin"));
    expect(none.members.every((m) => m.permissions.length === 0)).toBe(true);
    expect(none.ids).toContain(SEEDED.users.member);
    const out = await valueOf(
      data.getOrganizationMembersOutput({ organizationId: pulumi.output(SEEDED.org), permission: "LEGAL_HOLD_ADMIN" }, s.as("orgAdmin")),
    );
    expect(out.emails).toEqual(["frances@northwind.example"]);
  });

  it("getOrganizationMember reads one member", async () => {
    const m = await data.getOrganizationMember({ organizationId: SEEDED.org, userId: SEEDED.users.multiOrgMember }, s.as("orgAdmin"));
    expect(m).toMatchObject({ id: SEEDED.users.multiOrgMember, permissions: ["CLOUD_MANAGEMENT_ADMIN"] });
    expect(
      await valueOf(
        data.getOrganizationMemberOutput({ organizationId: SEEDED.org, userId: SEEDED.users.multiOrgMember }, s.as("orgAdmin")),
      ),
    ).toEqual(m);
    const err = await failure(data.getOrganizationMember({ organizationId: SEEDED.org, userId: SEEDED.users.noAccess }, s.as("orgAdmin")));
    expect(err.status).toBe(404);
    expect(err.message).toMatch(/^getOrganizationMember: reading member 1009 of organization 102: the service answered 404/);
  });

  it("getOrganizationInvitations tells pending from expired", async () => {
    const all = await data.getOrganizationInvitations({ organizationId: SEEDED.org }, s.as("orgAdmin"));
    expect(all.pendingEmails).toEqual([SEEDED.invitations.pending]);
    expect(all.expiredEmails).toEqual([SEEDED.invitations.expired]);
    const byEmail = Object.fromEntries(all.invitations.map((i) => [i.email, i.status]));
    expect(byEmail).toEqual({ [SEEDED.invitations.pending]: "pending", [SEEDED.invitations.expired]: "expired" });
    const expired = await data.getOrganizationInvitations({ organizationId: SEEDED.org, status: "expired" }, s.as("orgAdmin"));
    expect(expired.invitations.map((i) => i.email)).toEqual([SEEDED.invitations.expired]);
    expect(expired.invitations[0].organizationPermissions).toEqual(["LEGAL_HOLD_ADMIN"]);
    const out = await valueOf(data.getOrganizationInvitationsOutput({ organizationId: SEEDED.org, status: "pending" }, s.as("orgAdmin")));
    expect(out.pendingEmails).toEqual([SEEDED.invitations.pending]);
    expect(out.expiredEmails).toEqual([]);
    const bad = await failure(data.getOrganizationInvitations({ organizationId: SEEDED.org, status: "old" as never }, s.as("orgAdmin")));
    expect(bad.message).toBe("getOrganizationInvitations: invalid argument 'status': must be one of pending, expired, got \"old\"");
  });

  it("getOrganizationUserIdentifiers lists the identifiers in use", async () => {
    const ids = await data.getOrganizationUserIdentifiers({ organizationId: SEEDED.org }, s.as("orgAdmin"));
    expect(ids.userIdentifiers.map((i) => i.abbreviation)).toEqual(expect.arrayContaining(["AL", "AT", "MH", "KT"]));
    const out = await valueOf(
      data.getOrganizationUserIdentifiersOutput({ organizationId: SEEDED.org, abbreviation: "AL" }, s.as("orgAdmin")),
    );
    expect(out.userIdentifiers).toEqual([expect.objectContaining({ abbreviation: "AL", label: "Ada Lovelace" })]);
  });

  it("getDatabaseUsers and getDatabaseUser read database permissions", async () => {
    const users = await data.getDatabaseUsers({ databaseId: SEEDED.databases.open }, s.as("orgAdmin"));
    expect(users.ids).toEqual([SEEDED.users.multiOrgMember]);
    expect(users.users[0].permissions).toEqual(["DB_UPLOAD"]);
    expect((await data.getDatabaseUsers({ databaseId: SEEDED.databases.open, permission: "DB_ADMIN" }, s.as("orgAdmin"))).ids).toEqual([]);
    const admins = await valueOf(
      data.getDatabaseUsersOutput({ databaseId: SEEDED.databases.restricted, permission: "DB_ADMIN" }, s.as("databaseAdmin")),
    );
    expect(admins.ids).toEqual([SEEDED.users.databaseAdmin]);
    const one = await data.getDatabaseUser({ databaseId: SEEDED.databases.open, userId: SEEDED.users.multiOrgMember }, s.as("orgAdmin"));
    expect(one).toMatchObject({ active: true, permissions: ["DB_UPLOAD"], user: { id: SEEDED.users.multiOrgMember } });
    expect(
      await valueOf(
        data.getDatabaseUserOutput({ databaseId: SEEDED.databases.open, userId: SEEDED.users.multiOrgMember }, s.as("orgAdmin")),
      ),
    ).toEqual(one);
  });
});

describe("pagination", () => {
  it("reads every page past 200 items (450 members, limit 200 per page)", async () => {
    const org = s.emu.store.organizations.create({ name: "Big Firm" });
    addSyntheticMembers(s.emu.store, org.id, 450);
    addSyntheticMembers(s.emu.store, org.id, 3, ["ORG_ADMIN"]);
    const key = s.emu.store.apiKeys.mintOrganizationKey(org.id, "bigFirm").key;
    const opts = { settings: s.settingsOf({ key }) };
    s.emu.traffic.log.reset();

    const all = await data.getOrganizationMembers({ organizationId: org.id }, opts);
    expect(all.members).toHaveLength(453);
    expect(new Set(all.ids).size).toBe(453);
    const pages = s.emu.traffic.log.list("GetOrganizationUsers");
    expect(pages).toHaveLength(3);
    expect(pages.every((e) => e.path.includes("limit=200"))).toBe(true);

    const admins = await valueOf(data.getOrganizationMembersOutput({ organizationId: org.id, permission: "ORG_ADMIN" }, opts));
    expect(admins.ids).toHaveLength(3);
    expect(admins.ids.every((id) => id > Math.max(...all.ids.slice(0, 450)))).toBe(true);
  });
});
