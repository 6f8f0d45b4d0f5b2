/**
 * Rules of access the provider, the CLI and the policy pack all apply, kept where all three may
 * import them (the pack imports only the contract): what is privileged, and whom an ethical wall
 * covers. Pure, with no I/O.
 */
import { OrganizationPermission } from "./schemas";
import type { DatabasePermission, OrganizationPermission as OrganizationPermissionName } from "./types";

/** The organization permission that administers an organization. */
export const ORG_ADMIN = "ORG_ADMIN" satisfies OrganizationPermissionName;
/** The database permission that administers a database; every database keeps one holder. */
export const DB_ADMIN = "DB_ADMIN" satisfies DatabasePermission;

/**
 * The privileges: every organization permission, and DB_ADMIN on a database. A person holding one
 * is privileged (the review packet's flag, getStalePrivilegedPeople); each may have a stale limit
 * of its own (`staleDaysByPrivilege`, `review --stale-days PRIVILEGE=N`).
 */
export const PRIVILEGES = [...OrganizationPermission.options, DB_ADMIN] as const;
/** One of {@link PRIVILEGES}. */
export type Privilege = (typeof PRIVILEGES)[number];

const ORGANIZATION_PRIVILEGES: readonly string[] = OrganizationPermission.options;

/** The privileges among the permissions someone holds on an organization or on a database, in their order. */
export function privilegesAmong(scope: "organization" | "database", permissions: readonly string[]): Privilege[] {
  const isPrivilege = scope === "organization" ? (p: string) => ORGANIZATION_PRIVILEGES.includes(p) : (p: string) => p === DB_ADMIN;
  return permissions.filter(isPrivilege) as Privilege[];
}

/**
 * True when an ethical wall's `people` entry covers `email`: the same address, or a domain pattern
 * `*@domain` of its domain. The entry is as the wall stores it (lower-cased); the email is trimmed
 * and lower-cased here. The EthicalWall resource, the access matrix, the review packet and the
 * pack's ethical-walls policy read a wall through it.
 */
export function wallCovers(entry: string, email: string): boolean {
  const e = email.trim().toLowerCase();
  return entry.startsWith("*@") ? e.endsWith(entry.slice(1)) : e === entry;
}
