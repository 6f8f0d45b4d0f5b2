/**
 * The input rules resources share, each written once: ids, emails, permission sets, identifier
 * lists. Each schema normalizes what it accepts (see normalize.ts) and words its rule so that a
 * check failure reads "<field>: <rule>".
 */
import { z } from "zod";
import { DatabasePermission, OrganizationPermission, uniqueArray } from "../../../contract";
import { normalizeIdentifiers, sortedSet } from "../../normalize";

/** A positive integer id of the named thing ("organization", "database", ...). */
export function idInput(what: string) {
  return z
    .number()
    .int({ message: `must be a positive integer ${what} id` })
    .positive({ message: `must be a positive integer ${what} id` });
}

export const OrganizationId = idInput("organization");
export const DatabaseId = idInput("database");
export const UserId = idInput("user");

/**
 * `raw` as an email address is stored (trimmed, lower-cased: at most 254 characters, the limit of
 * RFC 5321, in zod's email pattern), or what is wrong with it. The one email rule: Email applies
 * it, and a roster reads its map's keys with it directly (at 28,007 keys a schema run per key
 * cost ten times as much).
 */
export function readEmail(raw: string): { email: string } | { problem: string } {
  const email = raw.trim().toLowerCase();
  if (email.length > 254) return { problem: "must be at most 254 characters (the longest email address there can be)" };
  if (!z.regexes.email.test(email)) return { problem: "must be an email address" };
  return { email };
}

/** An email address, stored trimmed and lower-cased (readEmail). */
export const Email = z.string().transform((raw, ctx) => {
  const read = readEmail(raw);
  if ("email" in read) return read.email;
  ctx.addIssue({ code: "custom", message: read.problem });
  return z.NEVER;
});

/**
 * Characters no name may hold: C0 and C1 controls (NUL, tab, line breaks, DEL), the line and
 * paragraph separators, and the bidirectional controls (U+202E right-to-left override and its
 * kin), which make a name read in lists and emails other than it is.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** What is wrong with a name (its first control character), or undefined. */
export function nameProblem(value: string): string | undefined {
  const found = CONTROL_CHARACTER.exec(value);
  if (!found) return undefined;
  const code = `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
  return (
    `must not contain control characters (found ${code} at character ${found.index + 1}): ` +
    `no NUL, tab, line break or other C0/C1 control, and no bidirectional control such as U+202E`
  );
}

/** A name people read (a dataset's, an invitee's): any text without control characters. */
export const Name = z.string().superRefine((v, ctx) => {
  const problem = nameProblem(v);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

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
