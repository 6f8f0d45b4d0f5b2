/**
 * access.ts of an exported project: the access itself as typed data, one person or grant per line,
 * in a fixed order, with no timestamp of the export, so that two exports of the same world are
 * byte-identical and a later export diffs line by line against the committed one. Lines that want
 * a human decision end with a `DECIDE:` comment.
 */
import type { ExportedAccess, ExportedGrant, ExportedInvitation, ExportedMember, ExportedOrganization } from "./read";

/** How the exported program manages what it adopts (decides the wording of the decisions). */
export interface ProgramStyle {
  /** One roster per organization and per database, or one resource per person and per grant. */
  style: "rosters" | "per-person";
  mode: "additive" | "authoritative";
  /** Whether index.ts sets retainOnDelete on what it adopts. */
  retainOnDelete: boolean;
}

/** A TypeScript string literal (JSON's is one). */
const str = (s: string) => JSON.stringify(s);
/** Text safe inside a line comment (review apply-signoff writes its notes with it too). */
export const commentText = (s: string) => s.replace(/[\r\n\u2028\u2029]+/g, " ");
const list = (items: readonly string[]) => `[${items.map(str).join(", ")}]`;
/** 2026-11-17 of an ISO timestamp (the day is what a reviewer needs). */
const day = (iso: string) => iso.slice(0, 10);

function names(p: { firstName?: string; lastName?: string }): string {
  return (
    (p.firstName !== undefined ? `, firstName: ${str(p.firstName)}` : "") +
    (p.lastName !== undefined ? `, lastName: ${str(p.lastName)}` : "")
  );
}

function memberLine(m: ExportedMember, decide: string | undefined): string {
  const ids =
    m.identifiers === undefined
      ? ""
      : `, identifiers: [${m.identifiers.map((i) => `{ abbreviation: ${str(i.abbreviation)}, label: ${str(i.label)} }`).join(", ")}]`;
  return `{ email: ${str(m.email)}${names(m)}, permissions: ${list(m.permissions)}${ids} },${decide ? ` // DECIDE: ${decide}` : ""}`;
}

function invitationLine(i: ExportedInvitation): string {
  const note = i.expired ? `DECIDE: expired ${day(i.expiration)}: re-send or drop?` : `expires ${day(i.expiration)}`;
  return `{ email: ${str(i.email)}${names(i)}, permissions: ${list(i.permissions)} }, // ${note}`;
}

function grantLine(g: ExportedGrant, orgName: string): string {
  const notes = [commentText(g.who)];
  if (!g.member) notes.push(`not a member of ${commentText(orgName)}`);
  if (!g.active) notes.push("DECIDE: suspended account (active: false): keep this grant or remove it?");
  return `${g.userId}: ${list(g.permissions)}, // ${notes.join("; ")}`;
}

/**
 * How access is taken away in this file, for its header: an end date works in every style (the
 * provider removes what is past its expiresOn even from an additive roster, and whatever
 * retainOnDelete says, since the resource stays); deleting a line depends on the style.
 */
function removalNote(p: ProgramStyle): string[] {
  const deleting =
    p.style === "rosters"
      ? p.mode === "authoritative"
        ? [
            "Deleting a line instead removes that membership, invitation or grant on the next up too",
            "(authoritative rosters), with no record of why.",
          ]
        : [
            "Deleting a line instead only stops managing that person or grant and removes nothing (an",
            "additive roster removes no one who has no end date).",
          ]
      : p.retainOnDelete
        ? ["Deleting a line instead only stops managing it and leaves the access in place (retainOnDelete,", "see index.ts)."]
        : ["Deleting a line instead removes that membership, invitation or grant on the next up too, with", "no record of why."];
  return [
    'To take access away, give its line an end date, expiresOn: "YYYY-MM-DD" (UTC): access ends at the start',
    "of that day, and the first up on or after it removes it, whatever the style of index.ts. A reviewer's",
    "remove decision (pulumi-reviewadmin review apply-signoff) does exactly that: the sign-off day, and a",
    "comment naming the review and the reason.",
    ...deleting,
  ];
}

/** The comment above expiredInvitations: why they are apart, and how to re-send or drop one. */
function expiredNote(p: ProgramStyle): string[] {
  const how =
    p.style === "per-person"
      ? "index.ts adopts each with resendWhenExpired: false, so nothing is sent"
      : p.mode === "authoritative"
        ? "the roster leaves them in place (index.ts protects them) and lists them in `unmanaged`"
        : "the roster leaves them alone and lists them in `unmanaged`";
  return [
    "// Expired invitations are kept apart from `invitations` on purpose: a managed expired invitation",
    "// is re-sent on the next up, and the first up of an export must change nothing. Until you decide,",
    `// ${how}.`,
    "// DECIDE for each: re-send it (move the line to `invitations`: the next up re-sends it), or drop it",
    '// (give the line an end date of today, expiresOn: "YYYY-MM-DD", as a review\'s remove does: the next',
    "// up withdraws the invitation).",
  ];
}

function organizationBlock(org: ExportedOrganization, access: ExportedAccess, p: ProgramStyle): string[] {
  const { scope } = access;
  const granted = new Set(org.databases.flatMap((d) => d.grants.map((g) => g.userId)));
  // "No access" is judged only when grants were read: otherwise it would say too much. One counted
  // block, not a marker per line: an enterprise organization has tens of thousands of them.
  const noAccess = scope.grants ? org.members.filter((m) => m.permissions.length === 0 && !granted.has(m.userId)) : [];
  const pending = org.invitations.filter((i) => !i.expired);
  const expired = org.invitations.filter((i) => i.expired);
  const out: string[] = ["  {", `    id: ${org.id},`, `    name: ${str(org.name)},`];

  if (noAccess.length) {
    const count = noAccess.length.toLocaleString("en-US");
    out.push(
      `    // DECIDE: ${count} ${noAccess.length === 1 ? "member holds" : "members hold"} no organization permission and no grant on an exported database`,
      `    // (permissions: [] and no line under databases): keep or remove? ${noAccess.length <= 10 ? noAccess.map((m) => commentText(m.email)).join(", ") : "Find them by those two marks."}`,
    );
  }
  out.push("    members: [");
  for (const m of org.members) out.push(`      ${memberLine(m, undefined)}`);
  out.push("    ],");
  if (p.style === "rosters")
    out.push(
      "    // People this file does not declare whom the drift gate accepts as they are (an org admin made in the web",
      "    // application, say): their emails, each with a comment saying who accepted them, when and why.",
      "    knownExceptions: [],",
    );

  if (!scope.invitations) {
    out.push("    // Invitations were not exported (--no-invitations): they are left as they are.");
    out.push("    invitations: [],", "    expiredInvitations: [],");
  } else {
    out.push(pending.length ? "    invitations: [" : "    invitations: [],");
    if (pending.length) out.push(...pending.map((i) => `      ${invitationLine(i)}`), "    ],");
    out.push(...expiredNote(p).map((l) => `    ${l}`));
    out.push(expired.length ? "    expiredInvitations: [" : "    expiredInvitations: [],");
    if (expired.length) out.push(...expired.map((i) => `      ${invitationLine(i)}`), "    ],");
  }

  if (!scope.grants) {
    out.push("    // Database grants were not exported (--no-grants): they are left as they are.");
    out.push("    databases: [],");
  } else {
    for (const s of org.skippedDatabases)
      out.push(`    // Not exported: database ${s.id} ${commentText(str(s.name))}: ${commentText(s.reason)}.`);
    out.push(org.databases.length ? "    databases: [" : "    databases: [],");
    for (const db of org.databases) {
      out.push("      {", `        id: ${db.id},`, `        name: ${str(db.name)},`);
      if (db.grants.length === 0) out.push("        users: {},");
      else out.push("        users: {", ...db.grants.map((g) => `          ${grantLine(g, org.name)}`), "        },");
      out.push("      },");
    }
    if (org.databases.length) out.push("    ],");
  }
  out.push("  },");
  return out;
}

/**
 * The start of access.ts's type declarations, which review apply-signoff looks for: a file without
 * it was written by an export that could not end access (no expiresOn), so a remove would not compile.
 */
export const DATES_TYPE = "export type Dates = ";

/**
 * The types of access.ts. The dates are the provider's own input types (a roster entry's
 * expiresOn and startsOn; OrgMember's and DatabaseUserPermissions' expiresOn, as they have no
 * start date), so a date index.ts could not pass on fails tsc instead of being ignored.
 */
function typesOf(p: ProgramStyle): string {
  const dates =
    p.style === "rosters"
      ? `import type { DatabasePermission, OrganizationPermission, RosterMemberInput } from "pulumi-reviewadmin";

/**
 * When a line's access begins and ends, as the rosters take it: "YYYY-MM-DD" (UTC). expiresOn:
 * access ends at the start of that day, and up then removes it, even from an additive roster.
 * startsOn: the first day of access; before it the line counts as not declared.
 */
${DATES_TYPE}Pick<RosterMemberInput, "expiresOn" | "startsOn">;`
      : `import type { DatabasePermission, OrganizationPermission, OrgMemberArgs } from "pulumi-reviewadmin";

/**
 * When a line's access ends, as OrgMember and DatabaseUserPermissions take it: expiresOn
 * "YYYY-MM-DD" (UTC): access ends at the start of that day, and up then removes it. (A start
 * date, startsOn, is the rosters': export with --style rosters to declare one.)
 */
${DATES_TYPE}Pick<OrgMemberArgs, "expiresOn">;`;
  return `${dates}

/** A user identifier (the initials shown on review work). */
export interface Identifier {
  abbreviation: string;
  label: string;
}

/** A member of an organization. */
export interface Member extends Dates {
  /** The key of the person, compared case-insensitively. */
  email: string;
  /** Used only to invite someone new: the service cannot rename a member. */
  firstName?: string;
  lastName?: string;
  /** Organization permissions, the whole set; [] is a member without admin rights. */
  permissions: OrganizationPermission[];
  /** User identifiers, the whole set; left out: not managed. */
  identifiers?: Identifier[];
}

/** An invitation: the person gets \`permissions\` on accepting it. */
export interface Invitation extends Dates {
  email: string;
  firstName?: string;
  lastName?: string;
  permissions: OrganizationPermission[];
}

/** A user's permissions on a database (the whole set) with dates: \`{ permissions, expiresOn }\`. */
export interface Grant extends Dates {
  permissions: DatabasePermission[];
}

/** A database, and each user's permissions on it by user id: the permissions, or a Grant with dates. */
export interface Database {
  id: number;
  name: string;
  users: Record<number, DatabasePermission[] | Grant>;${
    p.style === "rosters"
      ? `
  /** User ids this file does not declare on the database whom the drift gate accepts as they are. */
  knownExceptions?: number[];`
      : ""
  }
}

/** One organization's access. */
export interface Organization {
  id: number;
  name: string;
  members: Member[];
  /** Pending invitations. */
  invitations: Invitation[];
  /** Expired invitations, waiting for a decision (see the comment above each list). */
  expiredInvitations: Invitation[];${
    p.style === "rosters"
      ? `
  /** Emails of people this file does not declare whom the drift gate accepts as they are (the roster's knownExceptions). */
  knownExceptions?: string[];`
      : ""
  }
  databases: Database[];
}`;
}

/** The text of access.ts for what was read, worded for the program index.ts will be. */
export function renderAccessFile(access: ExportedAccess, p: ProgramStyle): string {
  const orgs = access.organizations.map((o) => `${o.name} (organization ${o.id})`);
  const header = [
    "/**",
    ` * The access of ${commentText(orgs.join(", "))}, as data: exported from the live service`,
    " * by `pulumi-reviewadmin export`, turned into resources by index.ts. Change access by editing this",
    " * file in a pull request: the preview of the change (`pulumi preview --diff`) is the access review.",
    " *",
    " * Sorted (organizations and databases by id, people by email, database users by user id) so that an",
    " * export of the same organization is byte-identical, and a later export diffs cleanly against this",
    " * one. Lines marked DECIDE want a human decision; nothing changes until one is made.",
    " *",
    ...removalNote(p).map((l) => ` * ${l}`),
    " */",
  ];
  const body = [
    "export const organizations: Organization[] = [",
    ...access.organizations.flatMap((o) => organizationBlock(o, access, p)),
    "];",
  ];
  return [...header, typesOf(p), "", ...body].join("\n") + "\n";
}
