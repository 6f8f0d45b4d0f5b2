/**
 * A firm's synthetic scale (benchmarks): the synthetic members and databases of ScaleOptions
 * spread over several organizations of one firm, some people in more than one, and one key that
 * administers them all, so that one export (one stack) or one export per organization can be
 * measured on the same world.
 *
 * The firm's organizations, in this order: the main organization (102 unless told), Northwind
 * Compliance (103), Northwind Holdings (101, the parent of both: the organization with
 * sub-organizations), then new organizations "Synthetic firm N" with no parent. Ada Lovelace (user
 * 1001, the named key orgAdmin) is made ORG_ADMIN of each, so her key sees every one of them.
 */
import type { Store } from "./store";

/** How a firm's synthetic data is laid out (the ScaleOptions fields it reads). */
export interface FirmScale {
  /** Organizations of the firm (2 or more). */
  organizations: number;
  /** Extra members of each organization. */
  members?: number;
  /** Extra databases of each organization, each with one project. */
  databases?: number;
  /** New members of the database's organization holding DB_UPLOAD on each extra database. */
  usersPerDatabase?: number;
  /** The first N synthetic members of each organization are members of the next one too (the last's, of the first). */
  sharedMembers?: number;
}

/** The firm's organizations: `seeded` (in order) first, then new ones up to `count`. */
function firmOrganizations(store: Store, count: number, seeded: number[]): number[] {
  const ids = seeded.slice(0, count);
  while (ids.length < count) {
    const id = store.peekId("organization");
    ids.push(store.organizations.create({ name: `Synthetic firm ${id}` }).id);
  }
  return ids;
}

/**
 * Adds a firm's synthetic data to the seeded world: its organizations are `seeded` then new ones,
 * `add(orgId)` adds one organization's members and databases and returns the synthetic people it
 * added (members first), and `admin` (a user) is made org admin of each.
 */
export function addSyntheticFirm(
  store: Store,
  firm: FirmScale,
  seeded: number[],
  admin: number,
  add: (organizationId: number) => number[],
): number[] {
  const orgs = firmOrganizations(store, firm.organizations, seeded);
  const people = orgs.map((id) => add(id));
  const shared = firm.sharedMembers ?? 0;
  orgs.forEach((id, i) => {
    const next = orgs[(i + 1) % orgs.length]!;
    for (const userId of people[i]!.slice(0, shared)) store.members.seed(next, userId);
    // One key for the whole firm: the admin's, org admin of each (where not already).
    if (store.members.find(id, admin)?.permissions.includes("ORG_ADMIN") !== true) store.members.seed(id, admin, ["ORG_ADMIN"]);
  });
  return orgs;
}
