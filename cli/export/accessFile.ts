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
/** Text safe inside a line comment. */
const commentText = (s: string) => s.replace(/[\r\n\u2028\u2029]+/g, " ");
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

/** What removing a line of this file does, for the file's header. */
function removalNote(p: ProgramStyle): string[] {
  if (p.style === "rosters") {
    return p.mode === "authoritative"
      ? ["Removing a line removes that membership, invitation or grant on the next up (authoritative rosters)."]
      : [
          "Removing a line stops managing that person or grant and removes nothing (additive rosters never",
          "remove anyone): take the access away in the web application too, or switch index.ts to authoritative.",
        ];
  }
  return p.retainOnDelete
    ? [
        "Removing a line stops managing it and leaves the access in place (retainOnDelete, see index.ts):",
        "take the access away in the web application too, or drop retainOnDelete first.",
      ]
    : ["Removing a line removes that membership, invitation or grant on the next up."];
}

/** The comment above expiredInvitations: why they are apart, and how to re-send or drop one. */
function expiredNote(p: ProgramStyle): string[] {
  const how =
    p.style === "per-person"
      ? "index.ts adopts each with resendWhenExpired: false, so nothing is sent"
      : p.mode === "authoritative"
        ? "the roster leaves them in place (index.ts protects them) and lists them in `unmanaged`"
        : "the roster leaves them alone and lists them in `unmanaged`";
  const drop =
    p.style === "rosters"
      ? p.mode === "authoritative"
        ? "delete the line: the roster then deletes the invitation"
        : "delete the invitation in the web application, and the line"
      : p.retainOnDelete
        ? "delete the invitation in the web application, and the line"
        : "delete the line: the next up deletes the invitation";
  return [
    "// Expired invitations are kept apart from `invitations` on purpose: a managed expired invitation",
    "// is re-sent on the next up, and the first up of an export must change nothing. Until you decide,",
    `// ${how}.`,
    "// DECIDE for each: re-send it (move the line to `invitations`: the next up re-sends it), or drop it",
    `// (${drop}).`,
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
  const types = `import type { DatabasePermission, OrganizationPermission } from "pulumi-reviewadmin";

/** A user identifier (the initials shown on review work). */
export interface Identifier {
  abbreviation: string;
  label: string;
}

/** A member of an organization. */
export interface Member {
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
export interface Invitation {
  email: string;
  firstName?: string;
  lastName?: string;
  permissions: OrganizationPermission[];
}

/** A database, and each user's permissions on it (the whole set) by user id. */
export interface Database {
  id: number;
  name: string;
  users: Record<number, DatabasePermission[]>;
}

/** One organization's access. */
export interface Organization {
  id: number;
  name: string;
  members: Member[];
  /** Pending invitations. */
  invitations: Invitation[];
  /** Expired invitations, waiting for a decision (see the comment above each list). */
  expiredInvitations: Invitation[];
  databases: Database[];
}`;
  const body = [
    "export const organizations: Organization[] = [",
    ...access.organizations.flatMap((o) => organizationBlock(o, access, p)),
    "];",
  ];
  return [...header, types, "", ...body].join("\n") + "\n";
}
