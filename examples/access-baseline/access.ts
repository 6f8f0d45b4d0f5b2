/**
 * Who should have access to Northwind Legal, reviewed like code: a change of access is a pull
 * request against this list. The ids are those of the emulator's seeded world (`npm run emulator`):
 * organization 102, database 2001 "Northwind v. Contoso". Edit them for your own organization.
 */
import type { DatabasePermission, OrganizationPermission } from "pulumi-reviewadmin";

/** One person of the baseline. */
export interface Person {
  /** Their email: the key of the roster, compared case-insensitively. */
  email: string;
  /** Used when the person has to be invited (the service keeps existing users' names). */
  firstName: string;
  lastName: string;
  /** Organization permissions: the whole set. An empty list means "member, no admin rights". */
  permissions: OrganizationPermission[];
  /** User identifiers (initials shown on review work). Left out: not managed. */
  identifiers?: { abbreviation: string; label: string }[];
  /** Database permissions by database id (the whole set per database). */
  databases?: Record<number, DatabasePermission[]>;
}

/** The members of the organization this program manages. People not listed are left alone (additive roster). */
export const people: Person[] = [
  {
    email: "ada@northwind.example",
    firstName: "Ada",
    lastName: "Lovelace",
    permissions: ["ORG_ADMIN"],
    identifiers: [{ abbreviation: "AL", label: "Ada Lovelace" }],
  },
  {
    email: "alan@northwind.example",
    firstName: "Alan",
    lastName: "Turing",
    permissions: [],
    identifiers: [{ abbreviation: "AT", label: "Alan Turing" }],
  },
  {
    email: "barbara@northwind.example",
    firstName: "Barbara",
    lastName: "Liskov",
    permissions: [],
    identifiers: [{ abbreviation: "BL", label: "Barbara Liskov" }],
  },
  {
    email: "frances@northwind.example",
    firstName: "Frances",
    lastName: "Allen",
    permissions: ["LEGAL_HOLD_ADMIN"],
    databases: { 2001: ["DB_LEGAL_HOLD"] },
  },
  {
    email: "margaret@northwind.example",
    firstName: "Margaret",
    lastName: "Hamilton",
    permissions: ["CLOUD_MANAGEMENT_ADMIN"],
    identifiers: [{ abbreviation: "MH", label: "Margaret Hamilton" }],
  },
  {
    email: "ken@northwind.example",
    firstName: "Ken",
    lastName: "Thompson",
    permissions: ["AI_ADMIN"],
    identifiers: [{ abbreviation: "KT", label: "Ken Thompson" }],
    databases: { 2001: ["DB_UPLOAD"] },
  },
  {
    // Already a user of the platform (in no organization): the roster adds him as a member directly.
    email: "linus@example.com",
    firstName: "Linus",
    lastName: "Torvalds",
    permissions: [],
    databases: { 2001: ["DB_UPLOAD"] },
  },
];

/** Invitations managed on their own: people who have no account yet and are expected to join. */
export const invitations: { email: string; firstName: string; lastName: string; permissions: OrganizationPermission[] }[] = [
  { email: "priya@northwind.example", firstName: "Priya", lastName: "Raman", permissions: ["LEGAL_HOLD_ADMIN"] },
];
