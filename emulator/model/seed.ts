/**
 * The seeded world: small, fixed and deterministic, with one ready key per role, so every test,
 * example and demo starts from the same organizations and people.
 *
 *   101 Northwind Holdings (parent)            key parentOrgAdmin (organization key)
 *   ├─ 102 Northwind Legal (sub)               key orgKey (organization key)
 *   └─ 103 Northwind Compliance (sub)
 *   104 Contoso LLP (unrelated)
 *
 * People (key name → user, memberships):
 *   orgAdmin        1001 Ada Lovelace       102 ORG_ADMIN
 *   parentAdminUser 1002 Grace Hopper       101 ORG_ADMIN, 102 member
 *   member          1003 Alan Turing        102 member; user of project 3001
 *   databaseAdmin   1004 Barbara Liskov     102 member; DB_ADMIN + DB_UPLOAD on 2002; user of 3004
 *   legalHoldAdmin  1005 Frances Allen      102 LEGAL_HOLD_ADMIN
 *   subOrgAdmin     1006 Edsger Dijkstra    103 ORG_ADMIN
 *   multiOrgMember  1007 Margaret Hamilton  102 CLOUD_MANAGEMENT_ADMIN, 103 member; DB_UPLOAD on 2001
 *   otherOrgAdmin   1008 Donald Knuth       104 ORG_ADMIN; DB_ADMIN on 2004
 *   noAccess        1009 Radia Perlman      104 member (nothing at Northwind)
 *   (no key)        1010 Ken Thompson       102 AI_ADMIN; user of 3002
 *   unaffiliated    1011 Linus Torvalds     no organization (E19 with his email adds, not invites)
 *
 * Databases (owner, orgAdminAccess): 2001 Northwind v. Contoso (102, on): projects 3001 complete,
 * 3002 partial, 3003 eca. 2002 Internal Investigation (102, OFF): 3004 complete, 3005 suspended.
 * 2003 Compliance Audit (103): 3006. 2004 Contoso Matter (104): 3007. 2005 Board Review (101): 3008.
 *
 * Matter team (no record of the API holds one: walls live in the access program): 2001's team is
 * Alan and Barbara (`SEEDED.matterTeam`). Margaret's DB_UPLOAD on 2001 is outside it, so a
 * matter-team wall with that team finds her grant as a breach at refresh, and Ada (org admin of
 * 102, which 2001 keeps orgAdminAccess on for) as unenforceable; nothing is added to the world.
 *
 * Invitations: 102 has one pending (new.hire@northwind.example) and one expired
 * (late.joiner@northwind.example); 103 has one pending. Directories: 5001 (102), 5002 (104).
 * Billing history and a year of activity events come from billingHistory.ts and eventLog.ts.
 *
 * Synthetic scale (benchmarks, paging tests) adds members and databases to that world without
 * events: it stands for a big organization that already exists, not for N changes.
 */
import type { OrganizationPermission } from "../../contract/types";
import { seedEvents } from "./eventLog";
import { addSyntheticFirm } from "./firm";
import type { DatabaseRecord, MembershipRecord } from "./records";
import type { Store } from "./store";

/** Extra synthetic data for benchmarks (added to the main organization, 102, unless told). */
export interface ScaleOptions {
  /** Organization that receives the synthetic data (default 102, Northwind Legal). */
  organizationId?: number;
  /** Extra members. */
  members?: number;
  /** Extra databases, each with one project. */
  databases?: number;
  /** New members holding DB_UPLOAD on each extra database. */
  usersPerDatabase?: number;
  /**
   * Spread over a firm of this many organizations (firm.ts: 102, 103, their parent 101, then new
   * ones), members, databases and usersPerDatabase each organization's; Ada (key orgAdmin) is org
   * admin of all of them. Default 1: organizationId alone.
   */
  organizations?: number;
  /** With organizations: the first N synthetic members of each organization are members of the next one too. */
  sharedMembers?: number;
}

/** Ids of the seeded world, for tests and examples that need to name things. */
export const SEEDED = {
  parentOrg: 101,
  org: 102,
  subOrg: 103,
  otherOrg: 104,
  users: {
    orgAdmin: 1001,
    parentAdminUser: 1002,
    member: 1003,
    databaseAdmin: 1004,
    legalHoldAdmin: 1005,
    subOrgAdmin: 1006,
    multiOrgMember: 1007,
    otherOrgAdmin: 1008,
    noAccess: 1009,
    aiAdmin: 1010,
    unaffiliated: 1011,
  },
  databases: { open: 2001, restricted: 2002, subOrg: 2003, otherOrg: 2004, parentOrg: 2005 },
  projects: { complete: 3001, partial: 3002, eca: 3003, restricted: 3004, suspended: 3005, subOrg: 3006, otherOrg: 3007, parentOrg: 3008 },
  directories: { org: 5001, otherOrg: 5002 },
  invitations: {
    pending: "new.hire@northwind.example",
    expired: "late.joiner@northwind.example",
    subOrgPending: "auditor@external.example",
  },
  /**
   * The matter team of database 2001, for matter-team walls in examples and tests. It names people
   * already seeded, so the world (its counts, its requests) is the same: Margaret's DB_UPLOAD on
   * 2001 is outside the team (a breach), Ada reaches 2001 as org admin of 102 (unenforceable).
   */
  matterTeam: {
    databaseId: 2001,
    team: ["alan@northwind.example", "barbara@northwind.example"],
    reason: "Northwind v. Contoso matter team",
  },
} as const;

const DAY = 86_400_000;

/**
 * Fills an empty store with the seeded world and returns the named keys (also kept as
 * `store.namedKeys`). `seed` drives the keys, sizes, billing history and events; the shape of
 * the world is always the same.
 */
export function seedWorld(store: Store, seed = 1, scale: ScaleOptions = {}): Record<string, string> {
  store.clear(seed);
  const now = store.clock.now();

  const holdings = store.organizations.create({ name: "Northwind Holdings" });
  const legal = store.organizations.create({ name: "Northwind Legal", parentOrganizationId: holdings.id });
  const compliance = store.organizations.create({ name: "Northwind Compliance", parentOrganizationId: holdings.id });
  const contoso = store.organizations.create({ name: "Contoso LLP" });

  const person = (firstName: string, lastName: string, email: string, title: string) => {
    const u = store.users.create({ email, firstName, lastName, title, username: email });
    u.lastActivity = new Date(now - 3 * DAY).toISOString();
    u.lastLoggedOut = new Date(now - 2 * DAY).toISOString();
    return u;
  };
  const ada = person("Ada", "Lovelace", "ada@northwind.example", "Litigation Support Manager");
  const grace = person("Grace", "Hopper", "grace@northwind.example", "Director of Legal Operations");
  const alan = person("Alan", "Turing", "alan@northwind.example", "Reviewer");
  const barbara = person("Barbara", "Liskov", "barbara@northwind.example", "Investigations Lead");
  const frances = person("Frances", "Allen", "frances@northwind.example", "Legal Hold Coordinator");
  const edsger = person("Edsger", "Dijkstra", "edsger@northwind.example", "Compliance Manager");
  const margaret = person("Margaret", "Hamilton", "margaret@northwind.example", "eDiscovery Engineer");
  const donald = person("Donald", "Knuth", "donald@contoso.example", "Partner");
  const radia = person("Radia", "Perlman", "radia@contoso.example", "Associate");
  const ken = person("Ken", "Thompson", "ken@northwind.example", "Analytics Lead");
  person("Linus", "Torvalds", "linus@example.com", "Consultant");

  // Seeding is history, not activity: memberships are made without events (seedEvents writes a year of them).
  const join = (
    orgId: number,
    userId: number,
    permissions: OrganizationPermission[] = [],
    identifiers: { abbreviation: string; label: string }[] = [],
  ) => {
    store.members.seed(orgId, userId, permissions, identifiers);
  };
  join(legal.id, ada.id, ["ORG_ADMIN"], [{ abbreviation: "AL", label: "Ada Lovelace" }]);
  join(holdings.id, grace.id, ["ORG_ADMIN"]);
  join(legal.id, grace.id);
  join(legal.id, alan.id, [], [{ abbreviation: "AT", label: "Alan Turing" }]);
  join(legal.id, barbara.id);
  join(legal.id, frances.id, ["LEGAL_HOLD_ADMIN"]);
  join(compliance.id, edsger.id, ["ORG_ADMIN"]);
  join(legal.id, margaret.id, ["CLOUD_MANAGEMENT_ADMIN"], [{ abbreviation: "MH", label: "Margaret Hamilton" }]);
  join(compliance.id, margaret.id, [], [{ abbreviation: "MH", label: "Margaret Hamilton" }]);
  join(contoso.id, donald.id, ["ORG_ADMIN"]);
  join(contoso.id, radia.id);
  join(legal.id, ken.id, ["AI_ADMIN"], [{ abbreviation: "KT", label: "Ken Thompson" }]);

  const created = (daysAgo: number) => new Date(now - daysAgo * DAY).toISOString();
  const nvc = store.databases.create({ owningOrganizationId: legal.id, name: "Northwind v. Contoso", created: created(300) });
  const internal = store.databases.create({
    owningOrganizationId: legal.id,
    name: "Internal Investigation",
    orgAdminAccess: false,
    created: created(200),
  });
  const audit = store.databases.create({ owningOrganizationId: compliance.id, name: "Compliance Audit", created: created(150) });
  const contosoDb = store.databases.create({ owningOrganizationId: contoso.id, name: "Contoso Matter", created: created(120) });
  const board = store.databases.create({ owningOrganizationId: holdings.id, name: "Board Review", created: created(90) });

  store.databases.createProject({
    databaseId: nvc.id,
    name: "nvc-review",
    displayName: "NvC Review",
    created: created(300),
    userIds: [alan.id],
  });
  store.databases.createProject({
    databaseId: nvc.id,
    name: "nvc-privilege",
    displayName: "NvC Privilege Review",
    partial: true,
    created: created(250),
    userIds: [ken.id],
  });
  store.databases.createProject({
    databaseId: nvc.id,
    name: "nvc-eca",
    displayName: "NvC Early Case Assessment",
    eca: true,
    created: created(280),
  });
  store.databases.createProject({
    databaseId: internal.id,
    name: "ii-review",
    displayName: "Investigation Review",
    created: created(200),
    userIds: [barbara.id],
  });
  store.databases.createProject({
    databaseId: internal.id,
    name: "ii-archive",
    displayName: "Investigation Archive",
    suspended: true,
    created: created(190),
  });
  store.databases.createProject({ databaseId: audit.id, name: "audit-review", displayName: "Audit Review", created: created(150) });
  store.databases.createProject({
    databaseId: contosoDb.id,
    name: "contoso-review",
    displayName: "Contoso Review",
    created: created(120),
    userIds: [radia.id],
  });
  store.databases.createProject({ databaseId: board.id, name: "board-review", displayName: "Board Review", created: created(90) });
  for (const p of store.databases.allProjects()) p.lastLogin = new Date(now - 1 * DAY).toISOString();

  store.databases.setUser(internal.id, barbara.id, ["DB_ADMIN", "DB_UPLOAD"]);
  store.databases.setUser(nvc.id, margaret.id, ["DB_UPLOAD"]);
  store.databases.setUser(contosoDb.id, donald.id, ["DB_ADMIN"]);

  // Invitations, made as their inviters did, some time ago (events are part of the seeded year).
  const invite = (
    orgId: number,
    email: string,
    firstName: string,
    lastName: string,
    sentDaysAgo: number,
    by: number,
    permissions: OrganizationPermission[] = [],
  ) => {
    const inv = store.invitations.create(orgId, { email, firstName, lastName, permissions }, by, { event: false });
    inv.sent = new Date(now - sentDaysAgo * DAY).toISOString();
    inv.expiration = new Date(now - sentDaysAgo * DAY + 14 * DAY).toISOString();
  };
  invite(legal.id, SEEDED.invitations.pending, "New", "Hire", 2, ada.id);
  invite(legal.id, SEEDED.invitations.expired, "Late", "Joiner", 20, ada.id, ["LEGAL_HOLD_ADMIN"]);
  invite(compliance.id, SEEDED.invitations.subOrgPending, "Ext", "Auditor", 1, edsger.id);

  store.directories.create({ organizationId: legal.id, name: "Northwind Legal custodians" });
  store.directories.create({ organizationId: contoso.id, name: "Contoso custodians" });

  store.billing.seed(seed);
  const orgsForEvents = [legal, holdings, compliance, contoso].map((o) => ({
    id: o.id,
    userIds: store.members.of(o.id).map((m) => m.userId),
  }));
  seedEvents(store.events, seed, orgsForEvents, now);

  // The named keys before the scale options: they draw on the same random numbers, and the keys
  // must be the same whatever the scale (docs/emulator.md lists them).
  const keys: Record<string, string> = {
    orgAdmin: store.apiKeys.mintUserKey(ada.id, "orgAdmin").key,
    orgKey: store.apiKeys.mintOrganizationKey(legal.id, "orgKey").key,
    parentOrgAdmin: store.apiKeys.mintOrganizationKey(holdings.id, "parentOrgAdmin").key,
    parentAdminUser: store.apiKeys.mintUserKey(grace.id, "parentAdminUser").key,
    subOrgAdmin: store.apiKeys.mintUserKey(edsger.id, "subOrgAdmin").key,
    member: store.apiKeys.mintUserKey(alan.id, "member").key,
    databaseAdmin: store.apiKeys.mintUserKey(barbara.id, "databaseAdmin").key,
    legalHoldAdmin: store.apiKeys.mintUserKey(frances.id, "legalHoldAdmin").key,
    multiOrgMember: store.apiKeys.mintUserKey(margaret.id, "multiOrgMember").key,
    otherOrgAdmin: store.apiKeys.mintUserKey(donald.id, "otherOrgAdmin").key,
    noAccess: store.apiKeys.mintUserKey(radia.id, "noAccess").key,
    unaffiliated: store.apiKeys.mintUserKey(SEEDED.users.unaffiliated, "unaffiliated").key,
  };
  store.namedKeys = keys;
  applyScale(store, scale);
  store.changed();
  return keys;
}

/** Adds the synthetic members and databases a benchmark asked for. */
export function applyScale(store: Store, scale: ScaleOptions): void {
  const add = (orgId: number): number[] => [
    ...(scale.members ? addSyntheticMembers(store, orgId, scale.members) : []).map((m) => m.userId),
    ...(scale.databases ? addSyntheticDatabases(store, orgId, scale.databases, scale.usersPerDatabase ?? 0) : []).flatMap((d) =>
      store.databases.usersOf(d.id).map((u) => u.userId),
    ),
  ];
  const main = scale.organizationId ?? SEEDED.org;
  // A firm: the main organization, Northwind Compliance, their parent Northwind Holdings, then new ones; Ada administers all.
  const seeded = [main, ...[SEEDED.subOrg, SEEDED.parentOrg].filter((id) => id !== main)];
  if ((scale.organizations ?? 1) > 1)
    addSyntheticFirm(store, { ...scale, organizations: scale.organizations! }, seeded, SEEDED.users.orgAdmin, add);
  else add(main);
}

/**
 * Adds `count` new users (emails synthetic-N@example.com, N their id) as members of an
 * organization with the given permissions. No events are written.
 */
export function addSyntheticMembers(
  store: Store,
  organizationId: number,
  count: number,
  permissions: OrganizationPermission[] = [],
): MembershipRecord[] {
  store.organizations.get(organizationId);
  const added: MembershipRecord[] = [];
  for (let i = 0; i < count; i++) {
    const n = store.peekId("user");
    const email = `synthetic-${n}@example.com`;
    const user = store.users.create(
      { email, firstName: "Synthetic", lastName: `User ${n}`, title: "Reviewer", username: email },
      organizationId,
    );
    added.push(store.members.seed(organizationId, user.id, permissions));
  }
  return added;
}

/**
 * Adds `databases` databases to an organization, each with one complete project and
 * `usersPerDatabase` new members holding DB_UPLOAD on it (for benchmarks of database rosters).
 */
export function addSyntheticDatabases(store: Store, organizationId: number, databases: number, usersPerDatabase = 0): DatabaseRecord[] {
  const created: DatabaseRecord[] = [];
  for (let i = 0; i < databases; i++) {
    const db = store.databases.create({ owningOrganizationId: organizationId, name: `Synthetic matter ${store.peekId("database")}` });
    store.databases.createProject({ databaseId: db.id, name: `synthetic-${db.id}-review` });
    for (const m of addSyntheticMembers(store, organizationId, usersPerDatabase)) store.databases.setUser(db.id, m.userId, ["DB_UPLOAD"]);
    created.push(db);
  }
  return created;
}
