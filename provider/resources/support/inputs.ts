/**
 * The input rules resources share, each written once: ids, emails, permission sets, identifier
 * lists. Each schema normalizes what it accepts (see normalize.ts) and words its rule so that a
 * check failure reads "<field>: <rule>".
 */
import { z } from "zod";
import { DatabasePermission, OrganizationPermission, uniqueArray } from "../../../contract";
import { normalizeIdentifiers, sortedSet } from "../../normalize";

/** A positive integer id of the named thing ("organization", "database", ...). */
export function idOf(what: string) {
  return z
    .number()
    .int({ message: `must be a positive integer ${what} id` })
    .positive({ message: `must be a positive integer ${what} id` });
}

export const OrganizationId = idOf("organization");
export const DatabaseId = idOf("database");
export const UserId = idOf("user");

/** An email address (at most 254 characters, the limit of RFC 5321), stored trimmed and lower-cased. */
export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, { message: "must be at most 254 characters (the longest email address there can be)" })
  .pipe(z.email({ message: "must be an email address" }));

/** A set of organization permissions, stored sorted. */
export const OrganizationPermissions = uniqueArray(OrganizationPermission).transform((a) => sortedSet(a));

/** A set of database permissions, stored sorted. */
export const DatabasePermissions = uniqueArray(DatabasePermission).transform((a) => sortedSet(a));

/** A list of user identifiers: distinct abbreviations, stored sorted by abbreviation. */
const NotBlank = z.string().refine((v) => v.trim() !== "", { message: "must not be blank" });

export const IdentifierList = z
  .array(z.strictObject({ abbreviation: NotBlank, label: NotBlank }))
  .refine((a) => new Set(a.map((i) => i.abbreviation)).size === a.length, { message: "must not repeat an abbreviation" })
  .transform(normalizeIdentifiers);
