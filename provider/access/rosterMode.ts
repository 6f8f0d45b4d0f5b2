/**
 * A roster's mode: its own module, free of zod, because the mode is public (OrganizationMembers,
 * DatabaseUsers) and published declarations must not import zod (roster.ts holds the schema).
 */

/** Every mode, as a program writes it. */
export const ROSTER_MODES = ["authoritative", "additive"] as const;

/** "authoritative": the live set is made to equal the map; "additive": entries are only added or updated. */
export type RosterMode = (typeof ROSTER_MODES)[number];

/** Every setting of a roster's drift gate for people it does not declare (see access/gate.ts). */
export const ON_UNMANAGED = ["ignore", "report", "failOnPrivileged", "failOnAny"] as const;

/**
 * What a roster does about people in the organization (or database) that neither it nor another
 * resource of the program declares: "failOnPrivileged" (the default) fails refresh, preview and up
 * when one of them holds a privileged permission (any organization permission; DB_ADMIN on a
 * database), "failOnAny" when there is any, "report" lists them as a warning, "ignore" says nothing.
 */
export type OnUnmanaged = (typeof ON_UNMANAGED)[number];
