/**
 * The export benchmark's worlds and what one holds: the enterprise world (one organization of
 * 28,007 people), the firm worlds of `--people N` (five organizations, emulator/model/firm.ts), and
 * the organizations, members, databases and list bound the key's export reads in a seeded world.
 */
import { SEEDED, type WorldSnapshot } from "../emulator";
import type { ScaleWorld } from "./scaleWorld";

/** Size of one list page (E18, E23). */
export const PAGE = 200;

/** The enterprise world (opt-in: `npm run bench -- --enterprise`): 28,007 people in organization 102. */
export const ENTERPRISE_WORLD: ScaleWorld = { members: 20_000, databases: 200, usersPerDatabase: 40 };

/** Organizations of a firm world. */
export const FIRM_ORGANIZATIONS = 5;

/**
 * A firm of `people` synthetic people (`--enterprise --people N`; 100,000 in issue 57): five
 * organizations of people/5 each (102, 103, their parent 101, two more), shaped as the enterprise
 * world is: one database of 40 users per 100 people of an organization (1,000 databases at
 * 100,000), the rest plain members; and 5% of each organization's people members of the next
 * organization too.
 */
export function firmWorld(people: number): ScaleWorld {
  const perOrganization = Math.floor(people / FIRM_ORGANIZATIONS);
  const databases = Math.max(1, Math.round(perOrganization / 100));
  const usersPerDatabase = 40;
  return {
    organizations: FIRM_ORGANIZATIONS,
    members: perOrganization - databases * usersPerDatabase,
    databases,
    usersPerDatabase,
    sharedMembers: Math.round(perOrganization / 20),
  };
}

/** What the export of a seeded world reads: the organizations the bench key (Ada's) administers, and their databases. */
export interface ExportedWorld {
  organizationIds: number[];
  /** Memberships over those organizations (a person in two counts twice). */
  organizationMembers: number;
  /** People who are members of at least one of them. */
  people: number;
  databases: { id: number; users: number }[];
  /** Σ over organizations of ceil(members/200) + Σ over databases of ceil(users/200) + organizations × 5. */
  listBound: number;
}

/** The organizations and databases the orgAdmin key exports from `world`, and their list bound. */
export function exportedWorld(world: WorldSnapshot): ExportedWorld {
  const organizationIds = world.memberships
    .filter((m) => m.userId === SEEDED.users.orgAdmin && m.permissions.includes("ORG_ADMIN"))
    .map((m) => m.organizationId)
    .sort((a, b) => a - b);
  const inFirm = new Set(organizationIds);
  const memberships = world.memberships.filter((m) => inFirm.has(m.organizationId));
  const usersOf = new Map<number, number>();
  for (const u of world.databaseUsers) usersOf.set(u.databaseId, (usersOf.get(u.databaseId) ?? 0) + 1);
  const databases = world.databases
    .filter((d) => inFirm.has(d.owningOrganizationId))
    .map((d) => ({ id: d.id, users: usersOf.get(d.id) ?? 0 }));
  const listBound =
    organizationIds.reduce((n, id) => n + Math.ceil(memberships.filter((m) => m.organizationId === id).length / PAGE), 0) +
    databases.reduce((n, d) => n + Math.ceil(Math.max(1, d.users) / PAGE), 0) +
    5 * organizationIds.length;
  return {
    organizationIds,
    organizationMembers: memberships.length,
    people: new Set(memberships.map((m) => m.userId)).size,
    databases,
    listBound,
  };
}
