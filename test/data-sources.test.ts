/**
 * Data sources against the emulator over real HTTP on loopback: every function in its Promise
 * and Output forms, credentials from settings / environment / Pulumi config, pagination past 200,
 * 403s as one clear line, billing rules on the seeded history, events across a shared-timestamp
 * page boundary, and the access matrix with its renderers.
 */
import * as pulumi from "@pulumi/pulumi";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getClient, type ReviewAdminClient } from "../provider/client";
import * as data from "../provider/data";
import { DataSourceError, type DataSourceOptions } from "../provider/data";
import { SEEDED, startEmulator, type RunningEmulator } from "../emulator";

let emu: RunningEmulator;
const clients: ReviewAdminClient[] = [];

/** Options acting with one of the seeded roles' keys (a high client rate: the emulator's limit is off here). */
function as(role: string): DataSourceOptions {
  const client = getClient({ baseUrl: emu.url, apiKey: emu.keys[role], requestsPerSecond: 1000, retryBaseMs: 5 });
  if (!clients.includes(client)) clients.push(client);
  return { client };
}

/** Settings (not a client) for one role. */
function settingsOf(role: string) {
  return { baseUrl: emu.url, apiKey: emu.keys[role], requestsPerSecond: 1000 };
}

/**
 * The value of an Output outside a Pulumi program (rejects when the data source fails). The
 * Output's internal isKnown/isSecret promises reject too; a program's host reports those, here
 * they are observed so that only the value's rejection counts.
 */
function valueOf<T>(out: pulumi.Output<T>): Promise<T> {
  const o = out as unknown as { promise(): Promise<T>; isKnown: Promise<boolean>; isSecret: Promise<boolean> };
  o.isKnown.catch(() => {});
  o.isSecret.catch(() => {});
  return o.promise();
}

/** The failure of a promise, which must fail. */
async function failure(p: Promise<unknown>): Promise<DataSourceError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(DataSourceError);
    return err as DataSourceError;
  }
  throw new Error("expected a failure");
}

function previousMonth(): { year: number; month: number } {
  const now = new Date();
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1 };
}

beforeAll(async () => {
  emu = await startEmulator({ rateLimit: 0 });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await emu?.close();
});

describe("account data sources", () => {
  it("getCurrentUser reads the key's user, in both forms", async () => {
    const me = await data.getCurrentUser({}, as("orgAdmin"));
    expect(me.id).toBe(SEEDED.users.orgAdmin);
    expect(me.email).toBe("ada@northwind.example");
    expect(await valueOf(data.getCurrentUserOutput({}, as("orgAdmin")))).toEqual(me);
  });

  it("getOrganizations lists the key's organizations and sub-organizations, with filters", async () => {
    const all = await data.getOrganizations({}, as("parentOrgAdmin"));
    expect(all.ids).toEqual(expect.arrayContaining([SEEDED.parentOrg, SEEDED.org, SEEDED.subOrg]));
    expect(all.ids).not.toContain(SEEDED.otherOrg);
    const subs = await data.getOrganizations({ parentOrganizationId: SEEDED.parentOrg }, as("parentOrgAdmin"));
    expect(subs.ids).toEqual([SEEDED.org, SEEDED.subOrg]);
    expect((await data.getOrganizations({ isSubOrganization: false }, as("parentOrgAdmin"))).ids).toEqual([SEEDED.parentOrg]);
    expect((await data.getOrganizations({ nameContains: "LEGAL" }, as("parentOrgAdmin"))).ids).toEqual([SEEDED.org]);
    expect((await data.getOrganizations({ name: "Northwind" }, as("parentOrgAdmin"))).ids).toEqual([]);
    const out = await valueOf(data.getOrganizationsOutput({ parentOrganizationId: pulumi.output(SEEDED.parentOrg) }, as("parentOrgAdmin")));
    expect(out).toEqual(subs);
  });

  it("getOrganization reads one organization, in both forms", async () => {
    const org = await data.getOrganization({ orgId: SEEDED.org }, as("orgAdmin"));
    expect(org).toMatchObject({ id: SEEDED.org, name: "Northwind Legal", parentOrganizationId: SEEDED.parentOrg });
    expect(await valueOf(data.getOrganizationOutput({ orgId: Promise.resolve(SEEDED.org) }, as("orgAdmin")))).toEqual(org);
  });
});

describe("database data sources", () => {
  it("getDatabases lists what the key administers, with filters", async () => {
    const all = await data.getDatabases({}, as("orgAdmin"));
    expect(all.ids).toEqual([SEEDED.databases.open, SEEDED.databases.restricted]);
    expect((await data.getDatabases({ orgAdminAccess: false }, as("orgAdmin"))).ids).toEqual([SEEDED.databases.restricted]);
    expect((await data.getDatabases({ organizationId: SEEDED.subOrg }, as("orgAdmin"))).ids).toEqual([]);
    expect((await data.getDatabases({}, as("databaseAdmin"))).ids).toEqual([SEEDED.databases.restricted]);
    expect(await valueOf(data.getDatabasesOutput({}, as("orgAdmin")))).toEqual(all);
  });

  it("getDatabase reads one database, in both forms", async () => {
    const db = await data.getDatabase({ databaseId: SEEDED.databases.open }, as("orgAdmin"));
    expect(db).toMatchObject({ id: SEEDED.databases.open, name: "Northwind v. Contoso", orgAdminAccess: true, owningOrganizationId: SEEDED.org });
    expect(await valueOf(data.getDatabaseOutput({ databaseId: SEEDED.databases.open }, as("orgAdmin")))).toEqual(db);
  });

  it("getOrganizationDatabases lists an organization's databases, with filters", async () => {
    const all = await data.getOrganizationDatabases({ orgId: SEEDED.org }, as("orgAdmin"));
    expect(all.orgId).toBe(SEEDED.org);
    expect(all.ids).toEqual([SEEDED.databases.open, SEEDED.databases.restricted]);
    const named = await data.getOrganizationDatabases({ orgId: SEEDED.org, nameContains: "contoso" }, as("orgAdmin"));
    expect(named.ids).toEqual([SEEDED.databases.open]);
    expect(await valueOf(data.getOrganizationDatabasesOutput({ orgId: SEEDED.org, nameContains: "contoso" }, as("orgAdmin")))).toEqual(named);
  });

  it("getDatabaseSize reads the document counts", async () => {
    const size = await data.getDatabaseSize({ databaseId: SEEDED.databases.open }, as("orgAdmin"));
    const stored = emu.store.database(SEEDED.databases.open).size;
    expect(size).toMatchObject({ databaseId: SEEDED.databases.open, ...stored });
    expect(await valueOf(data.getDatabaseSizeOutput({ databaseId: SEEDED.databases.open }, as("orgAdmin")))).toEqual(size);
  });
});

describe("project data sources", () => {
  const p = SEEDED.projects;

  it("getProjects lists the projects the key can access, with filters", async () => {
    const all = await data.getProjects({}, as("orgAdmin"));
    // 2002 has orgAdminAccess off: its projects are not accessible to the org admin.
    expect(all.ids).toEqual([p.complete, p.partial, p.eca]);
    expect((await data.getProjects({ eca: true }, as("orgAdmin"))).ids).toEqual([p.eca]);
    expect((await data.getProjects({ nameContains: "privilege" }, as("orgAdmin"))).ids).toEqual([p.partial]);
    expect(await valueOf(data.getProjectsOutput({ eca: true }, as("orgAdmin")))).toEqual(await data.getProjects({ eca: true }, as("orgAdmin")));
  });

  it("getOrganizationProjects lists every project of the organization, filtered by suspended, eca, partial", async () => {
    const all = await data.getOrganizationProjects({ orgId: SEEDED.org }, as("orgAdmin"));
    expect(all.ids).toEqual([p.complete, p.partial, p.eca, p.restricted, p.suspended]);
    expect((await data.getOrganizationProjects({ orgId: SEEDED.org, suspended: true }, as("orgAdmin"))).ids).toEqual([p.suspended]);
    expect((await data.getOrganizationProjects({ orgId: SEEDED.org, suspended: false, partial: false, eca: false }, as("orgAdmin"))).ids).toEqual([
      p.complete,
      p.restricted,
    ]);
    expect((await data.getOrganizationProjects({ orgId: SEEDED.org, databaseId: SEEDED.databases.restricted }, as("orgAdmin"))).ids).toEqual([
      p.restricted,
      p.suspended,
    ]);
    const out = await valueOf(data.getOrganizationProjectsOutput({ orgId: SEEDED.org, partial: true }, as("orgAdmin")));
    expect(out.ids).toEqual([p.partial]);
  });

  it("getDatabaseProjects lists a database's projects with emailThreadingStatus", async () => {
    const all = await data.getDatabaseProjects({ databaseId: SEEDED.databases.open }, as("orgAdmin"));
    expect(all.ids).toEqual([p.complete, p.partial, p.eca]);
    expect(all.projects.every((x) => x.emailThreadingStatus === "IN_PROGRESS")).toBe(true);
    const out = await valueOf(data.getDatabaseProjectsOutput({ databaseId: SEEDED.databases.open, name: "nvc-eca" }, as("orgAdmin")));
    expect(out.ids).toEqual([p.eca]);
  });
});

describe("member data sources", () => {
  it("getOrganizationMembers lists members with permissions, with filters", async () => {
    const all = await data.getOrganizationMembers({ orgId: SEEDED.org }, as("orgAdmin"));
    const stored = emu.store.membersOf(SEEDED.org).map((m) => m.userId).sort((a, b) => a - b);
    expect([...all.ids].sort((a, b) => a - b)).toEqual(stored);
    expect((await data.getOrganizationMembers({ orgId: SEEDED.org, permission: "ORG_ADMIN" }, as("orgAdmin"))).ids).toEqual([SEEDED.users.orgAdmin]);
    expect((await data.getOrganizationMembers({ orgId: SEEDED.org, email: "ALAN@northwind.example" }, as("orgAdmin"))).ids).toEqual([SEEDED.users.member]);
    expect((await data.getOrganizationMembers({ orgId: SEEDED.org, nameContains: "hamil" }, as("orgAdmin"))).ids).toEqual([SEEDED.users.multiOrgMember]);
    expect((await data.getOrganizationMembers({ orgId: SEEDED.org, userIdentifier: "KT" }, as("orgAdmin"))).ids).toEqual([SEEDED.users.aiAdmin]);
    const none = await data.getOrganizationMembers({ orgId: SEEDED.org, noPermissions: true }, as("orgAdmin"));
    expect(none.members.every((m) => m.permissions.length === 0)).toBe(true);
    expect(none.ids).toContain(SEEDED.users.member);
    const out = await valueOf(data.getOrganizationMembersOutput({ orgId: pulumi.output(SEEDED.org), permission: "LEGAL_HOLD_ADMIN" }, as("orgAdmin")));
    expect(out.emails).toEqual(["frances@northwind.example"]);
  });

  it("getOrganizationMember reads one member", async () => {
    const m = await data.getOrganizationMember({ orgId: SEEDED.org, userId: SEEDED.users.multiOrgMember }, as("orgAdmin"));
    expect(m).toMatchObject({ id: SEEDED.users.multiOrgMember, permissions: ["CLOUD_MANAGEMENT_ADMIN"] });
    expect(await valueOf(data.getOrganizationMemberOutput({ orgId: SEEDED.org, userId: SEEDED.users.multiOrgMember }, as("orgAdmin")))).toEqual(m);
    const err = await failure(data.getOrganizationMember({ orgId: SEEDED.org, userId: SEEDED.users.noAccess }, as("orgAdmin")));
    expect(err.status).toBe(404);
    expect(err.message).toMatch(/^getOrganizationMember: reading member 1009 of organization 102: the service answered 404/);
  });

  it("getOrganizationInvitations tells pending from expired", async () => {
    const all = await data.getOrganizationInvitations({ orgId: SEEDED.org }, as("orgAdmin"));
    expect(all.pendingEmails).toEqual([SEEDED.invitations.pending]);
    expect(all.expiredEmails).toEqual([SEEDED.invitations.expired]);
    const byEmail = Object.fromEntries(all.invitations.map((i) => [i.email, i.status]));
    expect(byEmail).toEqual({ [SEEDED.invitations.pending]: "pending", [SEEDED.invitations.expired]: "expired" });
    const expired = await data.getOrganizationInvitations({ orgId: SEEDED.org, status: "expired" }, as("orgAdmin"));
    expect(expired.invitations.map((i) => i.email)).toEqual([SEEDED.invitations.expired]);
    expect(expired.invitations[0].organizationPermissions).toEqual(["LEGAL_HOLD_ADMIN"]);
    const out = await valueOf(data.getOrganizationInvitationsOutput({ orgId: SEEDED.org, status: "pending" }, as("orgAdmin")));
    expect(out.pendingEmails).toEqual([SEEDED.invitations.pending]);
    expect(out.expiredEmails).toEqual([]);
    const bad = await failure(data.getOrganizationInvitations({ orgId: SEEDED.org, status: "old" as never }, as("orgAdmin")));
    expect(bad.message).toBe('getOrganizationInvitations: \'status\' must be "pending" or "expired", got "old"');
  });

  it("getOrganizationUserIdentifiers lists the identifiers in use", async () => {
    const ids = await data.getOrganizationUserIdentifiers({ orgId: SEEDED.org }, as("orgAdmin"));
    expect(ids.userIdentifiers.map((i) => i.abbreviation)).toEqual(expect.arrayContaining(["AL", "AT", "MH", "KT"]));
    const out = await valueOf(data.getOrganizationUserIdentifiersOutput({ orgId: SEEDED.org, abbreviation: "AL" }, as("orgAdmin")));
    expect(out.userIdentifiers).toEqual([expect.objectContaining({ abbreviation: "AL", label: "Ada Lovelace" })]);
  });

  it("getDatabaseUsers and getDatabaseUser read database permissions", async () => {
    const users = await data.getDatabaseUsers({ databaseId: SEEDED.databases.open }, as("orgAdmin"));
    expect(users.ids).toEqual([SEEDED.users.multiOrgMember]);
    expect(users.users[0].permissions).toEqual(["DB_UPLOAD"]);
    expect((await data.getDatabaseUsers({ databaseId: SEEDED.databases.open, permission: "DB_ADMIN" }, as("orgAdmin"))).ids).toEqual([]);
    const admins = await valueOf(data.getDatabaseUsersOutput({ databaseId: SEEDED.databases.restricted, permission: "DB_ADMIN" }, as("databaseAdmin")));
    expect(admins.ids).toEqual([SEEDED.users.databaseAdmin]);
    const one = await data.getDatabaseUser({ databaseId: SEEDED.databases.open, userId: SEEDED.users.multiOrgMember }, as("orgAdmin"));
    expect(one).toMatchObject({ active: true, permissions: ["DB_UPLOAD"], user: { id: SEEDED.users.multiOrgMember } });
    expect(await valueOf(data.getDatabaseUserOutput({ databaseId: SEEDED.databases.open, userId: SEEDED.users.multiOrgMember }, as("orgAdmin")))).toEqual(one);
  });
});

describe("pagination", () => {
  it("reads every page past 200 items (450 members, limit 200 per page)", async () => {
    const org = emu.store.createOrganization({ name: "Big Firm" });
    emu.store.addSyntheticMembers(org.id, 450);
    emu.store.addSyntheticMembers(org.id, 3, ["ORG_ADMIN"]);
    const key = emu.store.mintOrganizationKey(org.id, "bigFirm").key;
    const opts = { settings: { baseUrl: emu.url, apiKey: key, requestsPerSecond: 1000 } };
    emu.traffic.log.reset();

    const all = await data.getOrganizationMembers({ orgId: org.id }, opts);
    expect(all.members).toHaveLength(453);
    expect(new Set(all.ids).size).toBe(453);
    const pages = emu.traffic.log.list("GetOrganizationUsers");
    expect(pages).toHaveLength(3);
    expect(pages.every((e) => e.path.includes("limit=200"))).toBe(true);

    const admins = await valueOf(data.getOrganizationMembersOutput({ orgId: org.id, permission: "ORG_ADMIN" }, opts));
    expect(admins.ids).toHaveLength(3);
    expect(admins.ids.every((id) => id > Math.max(...all.ids.slice(0, 450)))).toBe(true);
    await currentClientOf(opts).close();
  });
});

/** The cached client a settings-based call used (to close it). */
function currentClientOf(opts: { settings: { baseUrl: string; apiKey: string; requestsPerSecond: number } }): ReviewAdminClient {
  return getClient(opts.settings);
}

describe("errors", () => {
  it("a 403 is one line naming the data source, what was read, the status and the role needed", async () => {
    const err = await failure(data.getOrganizationMembers({ orgId: SEEDED.org }, as("member")));
    expect(err.status).toBe(403);
    expect(err.operationId).toBe("GetOrganizationUsers");
    expect(err.dataSource).toBe("getOrganizationMembers");
    expect(err.message).not.toContain("\n");
    expect(err.message).toMatch(
      /^getOrganizationMembers: reading the members of organization 102: the service answered 403 .* \(this needs org admin of organization 102, which the API key in use lacks\)$/,
    );
    const outErr = await valueOf(data.getOrganizationMembersOutput({ orgId: SEEDED.org }, as("member"))).catch((e) => e);
    expect(outErr).toBeInstanceOf(DataSourceError);
    expect(outErr.message).toBe(err.message);
  });

  it("a 403 on a database's users names the orgAdminAccess rule", async () => {
    const err = await failure(data.getDatabaseUsers({ databaseId: SEEDED.databases.restricted }, as("orgAdmin")));
    expect(err.status).toBe(403);
    expect(err.message).toMatch(/^getDatabaseUsers: reading the users of database 2002: the service answered 403 /);
    expect(err.message).toContain("DB_ADMIN on database 2002, or org admin of its owning organization when the database allows org admin access");
  });

  it("a bad key is a 401 with a hint; a bad argument fails before any request", async () => {
    const bad = await failure(data.getCurrentUser({}, { settings: { baseUrl: emu.url, apiKey: "ra.NOTAKEY1.X", requestsPerSecond: 1000 } }));
    expect(bad.status).toBe(401);
    expect(bad.message).toMatch(/^getCurrentUser: reading the user behind the API key: the service answered 401 .*check reviewadmin:apiKey/);
    await getClient({ baseUrl: emu.url, apiKey: "ra.NOTAKEY1.X", requestsPerSecond: 1000 }).close();

    const arg = await failure(data.getOrganization({ orgId: -3 }, as("orgAdmin")));
    expect(arg.message).toBe("getOrganization: 'orgId' must be a positive integer id, got -3");
  });
});

describe("credentials", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    pulumi.runtime.setAllConfig({});
  });

  it("explicit settings work", async () => {
    const me = await data.getCurrentUser({}, { settings: settingsOf("member") });
    expect(me.id).toBe(SEEDED.users.member);
  });

  it("environment variables work in a plain script", async () => {
    process.env.REVIEWADMIN_API_KEY = emu.keys.member;
    process.env.REVIEWADMIN_BASE_URL = emu.url;
    const me = await data.getCurrentUser();
    expect(me.id).toBe(SEEDED.users.member);
    expect((await valueOf(data.getCurrentUserOutput({}))).id).toBe(SEEDED.users.member);
  });

  it("Pulumi config reviewadmin:* wins over the environment", async () => {
    process.env.REVIEWADMIN_API_KEY = emu.keys.member;
    process.env.REVIEWADMIN_BASE_URL = emu.url;
    pulumi.runtime.setConfig("reviewadmin:apiKey", emu.keys.orgAdmin);
    const me = await data.getCurrentUser();
    expect(me.id).toBe(SEEDED.users.orgAdmin);
    // Explicit settings win over config.
    expect((await data.getCurrentUser({}, { settings: { apiKey: emu.keys.databaseAdmin } })).id).toBe(SEEDED.users.databaseAdmin);
  });

  it("no key anywhere is one clear error", async () => {
    delete process.env.REVIEWADMIN_API_KEY;
    delete process.env.REVIEWADMIN_BASE_URL;
    const err = await failure(data.getCurrentUser());
    expect(err.message).toMatch(/^getCurrentUser: reviewadmin: no API key: .*REVIEWADMIN_API_KEY/);
  });
});

describe("billing data sources", () => {
  const prev = previousMonth();

  it("a project suspended mid-month is billed ACTIVE that month with final state SUSPENDED", async () => {
    const bill = await data.getDatabaseBilling({ databaseId: SEEDED.databases.restricted, ...prev }, as("orgAdmin"));
    expect(bill).toMatchObject({ databaseId: SEEDED.databases.restricted, ...prev });
    const suspended = bill.projects.find((x) => x.id === SEEDED.projects.suspended)!;
    expect(suspended.monthStatus).toMatchObject({ billingState: "ACTIVE", finalState: "SUSPENDED" });
    expect(suspended.monthStatus.suspended).toMatch(/^\d{4}-\d\d-15T12:00:00/);
    // The database stays ACTIVE: another project is active.
    expect(bill.monthStatus.billingState).toBe("ACTIVE");

    const now = await data.getDatabaseBilling({ databaseId: SEEDED.databases.restricted }, as("orgAdmin"));
    const current = new Date();
    expect(now).toMatchObject({ year: current.getUTCFullYear(), month: current.getUTCMonth() + 1 });
    expect(now.projects.find((x) => x.id === SEEDED.projects.suspended)!.monthStatus.billingState).toBe("SUSPENDED");
    const out = await valueOf(data.getDatabaseBillingOutput({ databaseId: SEEDED.databases.restricted, ...prev }, as("orgAdmin")));
    expect(out).toEqual(bill);
  });

  it("getBillingSummary gives peak and final, standard and eca, by database and month; combined size = largest project", async () => {
    const summary = await data.getBillingSummary({ orgId: SEEDED.org, months: 3 }, as("orgAdmin"));
    expect(summary.months).toHaveLength(3);
    expect(summary.months[1]).toEqual(prev);
    expect(summary.rows.map((r) => [r.year, r.month, r.databaseId])).toEqual(
      summary.months.flatMap((m) => [SEEDED.databases.open, SEEDED.databases.restricted].map((id) => [m.year, m.month, id])),
    );
    for (const row of summary.rows) {
      // Combined = the largest project (by size), so its peak total is the projects' maximum.
      const largestPeak = Math.max(...row.projects.map((x) => x.peak.total));
      expect(row.peak.total).toBeCloseTo(largestPeak, 6);
      expect(row.peak.total).toBeCloseTo(row.peak.standard + row.peak.eca, 6);
      expect(row.peak.total).toBeGreaterThanOrEqual(row.final.total - 1e-9);
    }
    // ECA storage shows for the ECA project only.
    const open = summary.rows.find((r) => r.databaseId === SEEDED.databases.open && r.month === prev.month)!;
    const eca = open.projects.find((x) => x.id === SEEDED.projects.eca)!;
    expect(eca.peak.eca).toBeGreaterThan(0);
    expect(eca.peak.standard).toBe(0);
    expect(open.projects.find((x) => x.id === SEEDED.projects.complete)!.peak.eca).toBe(0);
    // Month totals are the sums of the rows.
    for (const t of summary.totals) {
      const rows = summary.rows.filter((r) => r.year === t.year && r.month === t.month);
      expect(t.databases).toBe(rows.length);
      expect(t.peak.total).toBeCloseTo(rows.reduce((s, r) => s + r.peak.total, 0), 6);
    }
    const restrictedPrev = summary.rows.find((r) => r.databaseId === SEEDED.databases.restricted && r.month === prev.month)!;
    expect(restrictedPrev.projects.find((x) => x.id === SEEDED.projects.suspended)).toMatchObject({ billingState: "ACTIVE", finalState: "SUSPENDED" });

    const out = await valueOf(data.getBillingSummaryOutput({ orgId: SEEDED.org, months: 3 }, as("orgAdmin")));
    expect(out).toEqual(summary);
    const csv = data.billingSummaryToCsv(summary);
    expect(csv.split("\n")[0]).toBe(
      "month,organizationId,databaseId,databaseName,projectId,projectName,billingState,finalState,peakStandardGb,peakEcaGb,peakTotalGb,finalStandardGb,finalEcaGb,finalTotalGb",
    );
    expect(csv.trim().split("\n")).toHaveLength(1 + summary.rows.length + summary.rows.reduce((s, r) => s + r.projects.length, 0));
  });

  it("getOrganizationBilling and getParentOrganizationBilling read one month", async () => {
    const org = await data.getOrganizationBilling({ orgId: SEEDED.org, ...prev }, as("orgAdmin"));
    expect(org.databases.map((d) => d.id)).toEqual([SEEDED.databases.open, SEEDED.databases.restricted]);
    const named = await valueOf(data.getOrganizationBillingOutput({ orgId: SEEDED.org, ...prev, nameContains: "internal" }, as("orgAdmin")));
    expect(named.databases.map((d) => d.id)).toEqual([SEEDED.databases.restricted]);
    const parent = await data.getParentOrganizationBilling({ orgId: SEEDED.parentOrg, ...prev }, as("parentOrgAdmin"));
    expect(parent).toMatchObject({ orgId: SEEDED.parentOrg, ...prev });
    expect(parent.active.peakSize.standard.billableGb).toBeGreaterThan(0);
    expect(await valueOf(data.getParentOrganizationBillingOutput({ orgId: SEEDED.parentOrg, ...prev }, as("parentOrgAdmin")))).toEqual(parent);
    const bad = await failure(data.getOrganizationBilling({ orgId: SEEDED.org, month: 13 }, as("orgAdmin")));
    expect(bad.message).toBe("getOrganizationBilling: 'month' must be an integer from 1 to 12, got 13");
  });

  it("getParentBillingSummary: the parent aggregate equals the sum over the parent and its sub-organizations", async () => {
    const summary = await data.getParentBillingSummary({ orgId: SEEDED.parentOrg, months: 2 }, as("parentOrgAdmin"));
    expect(summary.name).toBe("Northwind Holdings");
    expect(summary.subOrganizationIds).toEqual([SEEDED.org, SEEDED.subOrg]);
    expect(summary.perMonth).toHaveLength(2);
    for (const m of summary.perMonth) {
      expect(m.organizations.map((o) => o.organizationId)).toEqual([SEEDED.parentOrg, SEEDED.org, SEEDED.subOrg]);
      expect(m.matchesAggregate).toBe(true);
      expect(Math.abs(m.difference)).toBeLessThan(0.01);
      const sum = m.organizations.reduce((s, o) => s + o.active.peak.total + o.suspended.peak.total, 0);
      expect(m.aggregate.active.peak.total + m.aggregate.suspended.peak.total).toBeCloseTo(sum, 2);
    }
    // Previous month: the mid-month suspension counts as active; this month the suspended project counts as suspended.
    expect(summary.perMonth[0].aggregate.suspended.peak.total).toBe(0);
    expect(summary.perMonth[1].aggregate.suspended.peak.total).toBeGreaterThan(0);
    expect(new Set(summary.rows.map((r) => r.organizationId))).toEqual(new Set([SEEDED.parentOrg, SEEDED.org, SEEDED.subOrg]));
    const out = await valueOf(data.getParentBillingSummaryOutput({ orgId: SEEDED.parentOrg, months: 2 }, as("parentOrgAdmin")));
    expect(out).toEqual(summary);
  });

  it("billing needs org admin: a 403 names the role", async () => {
    const err = await failure(data.getBillingSummary({ orgId: SEEDED.org }, as("member")));
    expect(err.status).toBe(403);
    expect(err.message).toContain("this needs org admin of organization 102, or parent org admin");
  });
});

describe("getActivityEvents", () => {
  const storedEvents = (orgId: number) =>
    emu.store.eventsOf(orgId).sort((a, b) => a.timestamp - b.timestamp || a.id - b.id);

  it("reads every event of a time range across a shared-timestamp page boundary, each once", async () => {
    const stored = storedEvents(SEEDED.org);
    expect(stored.length).toBeGreaterThan(1000);
    // The seeded busy log has a group sharing one timestamp across index 999/1000 (the default page boundary).
    expect(stored[999].timestamp).toBe(stored[1000].timestamp);
    emu.traffic.log.reset();
    const res = await data.getActivityEvents({ orgId: SEEDED.org, begin: 0 }, as("orgAdmin"));
    expect(res.mode).toBe("range");
    expect(res.events.map((e) => e.id)).toEqual(stored.map((e) => e.id));
    expect(res.lastEventId).toBe(Math.max(...stored.map((e) => e.id)));
    expect(emu.traffic.log.list("GetOrganizationEvents")).toHaveLength(2);
  });

  it("small pages over many shared-timestamp groups lose and repeat nothing", async () => {
    const stored = storedEvents(SEEDED.subOrg);
    const begin = stored[0].timestamp;
    const end = stored[stored.length - 1].timestamp + 1;
    const groups = stored.filter((e, i) => i > 0 && e.timestamp === stored[i - 1].timestamp);
    expect(groups.length).toBeGreaterThan(0);
    for (const limit of [1, 2, 3, 7]) {
      const res = await data.getActivityEvents({ orgId: SEEDED.subOrg, begin, end, limit }, as("parentOrgAdmin"));
      expect(res.events.map((e) => e.id)).toEqual(stored.map((e) => e.id));
    }
    // A parent organization key sees no description or data.
    const res = await data.getActivityEvents({ orgId: SEEDED.subOrg, begin: new Date(begin), end: new Date(end).toISOString() }, as("parentOrgAdmin"));
    expect(res.events.every((e) => e.description === null && e.data === null)).toBe(true);
  });

  it("range bounds: begin inclusive, end exclusive", async () => {
    const stored = storedEvents(SEEDED.org);
    const begin = stored[100].timestamp;
    const end = stored[200].timestamp;
    const res = await data.getActivityEvents({ orgId: SEEDED.org, begin, end, limit: 10 }, as("orgAdmin"));
    expect(res.events.map((e) => e.id)).toEqual(stored.filter((e) => e.timestamp >= begin && e.timestamp < end).map((e) => e.id));
    expect(res).toMatchObject({ begin, end });
  });

  it("after an event id follows every E11 page", async () => {
    const stored = emu.store.eventsOf(SEEDED.org).sort((a, b) => a.id - b.id);
    const after = stored[300].id;
    const res = await data.getActivityEvents({ orgId: SEEDED.org, afterEventId: after, limit: 250 }, as("orgAdmin"));
    expect(res.mode).toBe("after");
    expect(res.events.map((e) => e.id)).toEqual(stored.filter((e) => e.id > after).map((e) => e.id));
    const again = await valueOf(data.getActivityEventsOutput({ orgId: SEEDED.org, afterEventId: res.lastEventId! }, as("orgAdmin")));
    expect(again.events).toEqual([]);
    expect(again.lastEventId).toBeNull();
  });

  it("recent: the most recent events", async () => {
    const stored = storedEvents(SEEDED.org);
    const res = await data.getActivityEvents({ orgId: SEEDED.org, recent: true, limit: 10 }, as("orgAdmin"));
    expect(res.mode).toBe("recent");
    expect(res.events.map((e) => e.id)).toEqual(stored.slice(-10).map((e) => e.id));
    const typed = await data.getActivityEvents({ orgId: SEEDED.org, recent: true, limit: 200, types: ["SAML_UPDATED"] }, as("orgAdmin"));
    expect(typed.events.every((e) => e.type === "SAML_UPDATED")).toBe(true);
  });

  it("refuses unclear argument combinations with one clear line", async () => {
    const cases: [data.GetActivityEventsArgs, RegExp][] = [
      [{ orgId: SEEDED.org }, /^getActivityEvents: no events selected: give begin/],
      [{ orgId: SEEDED.org, begin: 0, afterEventId: 5 }, /^getActivityEvents: begin\/end and afterEventId cannot be combined/],
      [{ orgId: SEEDED.org, recent: true, afterEventId: 5 }, /^getActivityEvents: afterEventId and recent cannot be combined/],
      [{ orgId: SEEDED.org, end: 5 }, /^getActivityEvents: 'end' needs 'begin'/],
      [{ orgId: SEEDED.org, begin: 10, end: 5 }, /^getActivityEvents: 'end' \(5\) must be later than 'begin' \(10\)/],
      [{ orgId: SEEDED.org, begin: "yesterday" }, /^getActivityEvents: 'begin' must be unix milliseconds/],
      [{ orgId: SEEDED.org, recent: true, limit: 20000 }, /^getActivityEvents: 'limit' must be an integer from 1 to 10000/],
    ];
    emu.traffic.log.reset();
    for (const [args, re] of cases) {
      const err = await failure(data.getActivityEvents(args, as("orgAdmin")));
      expect(err.message).toMatch(re);
    }
    expect(emu.traffic.log.list()).toHaveLength(0);
  });
});

describe("access review", () => {
  it("getAccessMatrix: members, invitations, and database users, with unreadable databases recorded", async () => {
    const m = await data.getAccessMatrix({ orgId: SEEDED.org }, as("orgAdmin"));
    expect(m.organization).toEqual({ id: SEEDED.org, name: "Northwind Legal" });
    const emails = m.members.map((x) => x.email);
    expect(emails).toEqual([...emails].sort());
    expect(m.members.find((x) => x.userId === SEEDED.users.orgAdmin)!.permissions).toEqual(["ORG_ADMIN"]);
    expect(m.members.some((x) => "lastActivity" in x)).toBe(false);
    expect(m.invitations.map((i) => [i.email, i.status])).toEqual([
      [SEEDED.invitations.expired, "expired"],
      [SEEDED.invitations.pending, "pending"],
    ]);
    expect(m.databases.map((d) => [d.databaseId, d.readable])).toEqual([
      [SEEDED.databases.open, true],
      [SEEDED.databases.restricted, false],
    ]);
    const open = m.databases[0];
    expect(open.users).toEqual([
      expect.objectContaining({ userId: SEEDED.users.multiOrgMember, email: "margaret@northwind.example", member: true, permissions: ["DB_UPLOAD"] }),
    ]);
    expect(m.databases[1].notReadable).toMatch(/^not readable with this key \(403 .*orgAdminAccess is off/);
    expect(m.summary).toMatchObject({ orgAdmins: 1, pendingInvitations: 1, expiredInvitations: 1, databases: 2, unreadableDatabases: 1, databaseUsers: 1 });
    // Plain JSON.
    expect(JSON.parse(JSON.stringify(m))).toEqual(m);

    // A database admin's own key can read the restricted database.
    emu.store.setDatabaseUser(SEEDED.databases.open, SEEDED.users.databaseAdmin, ["DB_LEGAL_HOLD", "DB_ADMIN"]);
    try {
      const again = await valueOf(data.getAccessMatrixOutput({ orgId: SEEDED.org }, as("orgAdmin")));
      expect(again.databases[0].users.map((u) => [u.email, u.permissions])).toEqual([
        ["barbara@northwind.example", ["DB_ADMIN", "DB_LEGAL_HOLD"]],
        ["margaret@northwind.example", ["DB_UPLOAD"]],
      ]);
    } finally {
      emu.store.setDatabaseUser(SEEDED.databases.open, SEEDED.users.databaseAdmin, []);
    }
  });

  it("toCsv and toMarkdown are deterministic and show every grant", async () => {
    const a = await data.getAccessMatrix({ orgId: SEEDED.org }, as("orgAdmin"));
    const b = await data.getAccessMatrix({ orgId: SEEDED.org }, as("orgAdmin"));
    expect(data.toCsv(a)).toBe(data.toCsv(b));
    expect(data.toMarkdown(a)).toBe(data.toMarkdown(b));

    const csv = data.toCsv(a).trimEnd().split("\n");
    expect(csv[0]).toBe("scope,scopeId,scopeName,userId,email,username,name,status,permissions,note");
    expect(csv).toContain("organization,102,Northwind Legal,1001,ada@northwind.example,ada@northwind.example,Ada Lovelace,member,ORG_ADMIN,");
    expect(csv).toContain(
      `organization,102,Northwind Legal,,${SEEDED.invitations.expired},,Late Joiner,invitation expired,LEGAL_HOLD_ADMIN,expires ${a.invitations[0].expiration}`,
    );
    expect(csv).toContain("database,2001,Northwind v. Contoso,1007,margaret@northwind.example,margaret@northwind.example,Margaret Hamilton,active,DB_UPLOAD,");
    expect(csv.some((l) => l.startsWith("database,2002,Internal Investigation,,,,,not readable,,"))).toBe(true);
    expect(csv).toHaveLength(1 + a.members.length + a.invitations.length + 1 + 1);

    const md = data.toMarkdown(a);
    expect(md).toContain("# Access review: Northwind Legal (organization 102)");
    expect(md).toContain("| ada@northwind.example | Ada Lovelace | 1001 | ORG_ADMIN |");
    expect(md).toContain("## Matrix");
    expect(md).toContain("| Person | Organization | Northwind v. Contoso (2001) | Internal Investigation (2002) |");
    expect(md).toContain("| margaret@northwind.example | CLOUD_MANAGEMENT_ADMIN | DB_UPLOAD | ? |");
    expect(md).toContain("_not readable with this key (403");
  });

  it("renderers escape CSV and Markdown special characters", () => {
    const m: data.AccessMatrix = {
      organization: { id: 1, name: 'A, "B" | C' },
      summary: { members: 1, orgAdmins: 0, pendingInvitations: 0, expiredInvitations: 0, databases: 0, unreadableDatabases: 0, databaseUsers: 0 },
      members: [{ userId: 7, email: "x@y.z", firstName: "Pipe|", lastName: "New\nLine", username: "x", permissions: [] }],
      invitations: [],
      databases: [],
    };
    expect(data.toCsv(m)).toBe(
      'scope,scopeId,scopeName,userId,email,username,name,status,permissions,note\norganization,1,"A, ""B"" | C",7,x@y.z,x,"Pipe| New\nLine",member,,\n',
    );
    expect(data.toMarkdown(m)).toContain("| x@y.z | Pipe\\| New Line | 7 | — |");
  });

  it("getAccessMatrix without org admin fails with one clear line", async () => {
    const err = await failure(data.getAccessMatrix({ orgId: SEEDED.org }, as("databaseAdmin")));
    expect(err.status).toBe(403);
    expect(err.message).toMatch(/^getAccessMatrix: reading the (members|invitations) of organization 102: the service answered 403 .*org admin of organization 102/);
  });
});
