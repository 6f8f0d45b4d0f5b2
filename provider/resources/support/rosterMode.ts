/**
 * A roster's mode: its own module, free of zod, because the mode is public (OrganizationMembers,
 * DatabaseUsers) and published declarations must not import zod (roster.ts holds the schema).
 */

/** Every mode, as a program writes it. */
export const ROSTER_MODES = ["authoritative", "additive"] as const;

/** "authoritative": the live set is made to equal the map; "additive": entries are only added or updated. */
export type RosterMode = (typeof ROSTER_MODES)[number];
