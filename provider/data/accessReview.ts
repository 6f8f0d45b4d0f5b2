/**
 * Access review: who can do what in one organization, as plain JSON-able data (`getAccessMatrix`)
 * and two renderers (`toCsv`, `toMarkdown`).
 *
 * Everything is ordered deterministically (members and invitations by email, databases by id,
 * database users by email or username, then id) and nothing that changes on its own between runs
 * (such as last activity) is included unless asked for, so the output of two runs diffs to the
 * real changes in access.
 */
import { z } from "zod";
import type { DatabasePermission, OrganizationPermission } from "../../contract/types";
import { ApiError } from "../client";
import { answerText } from "../failures";
import { sortedSet } from "../normalize";
import { administers, ORG_ADMIN, wallClosesTo, wallFormProblems } from "../../contract/grants";
import { compareText, mapLimit } from "../util";
import { csvLine, markdownCell as md } from "./spreadsheetSafe";
import { idArg } from "./args";
import { outputForm, type DataSourceFn } from "./dataSource";
import { defineDataSource } from "./defineDataSource";
import type { GetAccessMatrixArgs } from "./argTypes.generated";

export type { GetAccessMatrixArgs };

/**
 * getAccessMatrix arguments.
 * @inputType GetAccessMatrixArgs
 */
const getAccessMatrixArgs = z.strictObject({
  /** The organization to review. */
  organizationId: idArg,
  /** Include each member's lastActivity (off by default: it changes between runs and would show in diffs). */
  includeActivity: z.boolean().optional(),
  /**
   * The program's ethical walls (the EthicalWall resources' arguments, which a data source cannot
   * read from the stack): each is listed in the review with its state (held, breached, unenforceable).
   * Each gives exactly one of `people` (walled off) and `team` (a matter team: everyone else is walled off).
   */
  walls: z
    .array(
      z
        .strictObject({
          /** The wall's name in the report (e.g. the EthicalWall's resource name). */
          name: z.string().min(1, { message: "must name the wall" }),
          /** The walled databases. */
          databaseIds: z.array(z.number().int().positive({ message: "must be a positive integer database id" })),
          /** Exclusionary form: emails and `*@domain` patterns walled off. */
          people: z.array(z.string().trim().toLowerCase()).optional(),
          /** Matter-team form: the team, emails and `*@domain` patterns; everyone else with access to the databases is flagged. */
          team: z.array(z.string().trim().toLowerCase()).optional(),
          /** Matter-team form only: others who may see the matter besides the team. */
          alsoAllowed: z.array(z.string().trim().toLowerCase()).optional(),
          /** Why the wall stands. */
          reason: z.string(),
        })
        .superRefine((w, ctx) => {
          for (const p of wallFormProblems(w)) ctx.addIssue({ code: "custom", path: [p.field], message: p.message });
        }),
    )
    .optional(),
});

/** A member of the organization and their organization permissions. */
export interface AccessMember {
  userId: number;
  email: string;
  firstName: string;
  lastName: string;
  username: string;
  /** Organization permissions, sorted. */
  permissions: OrganizationPermission[];
  /** Only with includeActivity. */
  lastActivity?: string | null;
}

/** A pending or expired invitation. */
export interface AccessInvitation {
  email: string;
  firstName: string;
  lastName: string;
  status: "pending" | "expired";
  /** ISO 8601. */
  expiration: string;
  /** Permissions the invitation grants, sorted. */
  organizationPermissions: OrganizationPermission[];
}

/** A user holding permissions on a database. */
export interface AccessDatabaseUser {
  userId: number;
  /** The user's email when they are a member of the organization (the database-user endpoint does not give emails), else null. */
  email: string | null;
  username: string;
  firstName: string;
  lastName: string;
  /** Whether the user is a member of the reviewed organization. */
  member: boolean;
  active: boolean;
  /** Database permissions, sorted. */
  permissions: DatabasePermission[];
}

/** One database of the organization and who holds permissions on it. */
export interface AccessDatabase {
  databaseId: number;
  name: string;
  orgAdminAccess: boolean;
  /** False when the key may not list the database's users (e.g. orgAdminAccess false and no DB_ADMIN): `users` is then empty. */
  readable: boolean;
  /** Why the database is not readable ("not readable with this key: ..."), null when readable. */
  notReadable: string | null;
  users: AccessDatabaseUser[];
}

/** Counts for a summary line. */
export interface AccessSummary {
  members: number;
  orgAdmins: number;
  pendingInvitations: number;
  expiredInvitations: number;
  databases: number;
  unreadableDatabases: number;
  /** Distinct users holding any database permission in the readable databases. */
  databaseUsers: number;
}

/** A walled person found with access across an ethical wall. */
export interface AccessWallFinding {
  databaseId: number;
  userId: number;
  /** The email; for a database user the platform gives none (a matter-team wall flags them), the username or "user <id>". */
  email: string;
  /** Database permissions held (breach), or ["ORG_ADMIN"] for an org admin reaching the database through orgAdminAccess. */
  permissions: string[];
}

/** An ethical wall as the review finds it in the live platform. */
export interface AccessWall {
  name: string;
  reason: string;
  databaseIds: number[];
  /** Exclusionary form: the people walled off, as given. */
  people?: string[];
  /** Matter-team form: the team, as given; everyone else is walled off. */
  team?: string[];
  /** Matter-team form: others who may see the matter, as given. */
  alsoAllowed?: string[];
  /**
   * "held": nobody walled has access; "breached": a walled person holds permissions on a walled
   * database (up of the wall with onBreach "remove" can take them away); "unenforceable": a walled
   * org admin reaches a walled database that keeps orgAdminAccess on, which the API cannot change.
   */
  state: "held" | "breached" | "unenforceable";
  breaches: AccessWallFinding[];
  unenforceable: AccessWallFinding[];
  /** Walled databases the review could not check: not the organization's, or not readable with this key. */
  notChecked: number[];
}

/** The access matrix of one organization: plain JSON-able data. */
export interface AccessMatrix {
  organization: { id: number; name: string };
  summary: AccessSummary;
  members: AccessMember[];
  invitations: AccessInvitation[];
  databases: AccessDatabase[];
  /** The walls given in `walls`, in their order (absent when none were given). */
  walls?: AccessWall[];
}

/**
 * Each wall's state on the matrix's members and databases, judged by the walls' one rule
 * (contract/grants.ts wallClosesTo): an exclusionary wall closes its databases to the people it
 * names, a matter-team wall to everyone its team and alsoAllowed do not cover.
 */
function wallsOf(
  walls: NonNullable<z.infer<typeof getAccessMatrixArgs>["walls"]>,
  members: AccessMember[],
  databases: AccessDatabase[],
): AccessWall[] {
  return walls.map((w) => {
    // A user the platform gives no email cannot be on a team: a matter-team wall flags them, as the EthicalWall does.
    const covered = (email: string | null) => wallClosesTo(w, { email: email ?? undefined });
    const ids = [...new Set(w.databaseIds)].sort((a, b) => a - b);
    const breaches: AccessWallFinding[] = [];
    const unenforceable: AccessWallFinding[] = [];
    const notChecked: number[] = [];
    for (const id of ids) {
      const db = databases.find((d) => d.databaseId === id);
      if (!db || !db.readable) notChecked.push(id);
      if (!db) continue;
      for (const u of db.users)
        if (covered(u.email))
          breaches.push({
            databaseId: id,
            userId: u.userId,
            email: u.email ?? (u.username || `user ${u.userId}`),
            permissions: u.permissions,
          });
      if (db.orgAdminAccess)
        for (const m of members)
          if (administers("organization", m.permissions) && covered(m.email))
            unenforceable.push({ databaseId: id, userId: m.userId, email: m.email, permissions: [ORG_ADMIN] });
    }
    const state = unenforceable.length ? "unenforceable" : breaches.length ? "breached" : "held";
    const form = w.team ? { team: w.team, ...(w.alsoAllowed ? { alsoAllowed: w.alsoAllowed } : {}) } : { people: w.people };
    return { name: w.name, reason: w.reason, databaseIds: ids, ...form, state, breaches, unenforceable, notChecked };
  });
}

function text(s: string | null | undefined): string {
  return typeof s === "string" ? s : "";
}

function personKey(email: string | null, username: string): string {
  return (email ?? username).toLowerCase();
}

/**
 * Builds an organization's access matrix: every member and their organization permissions
 * (`GET /v1/organizations/{orgId}/users`), pending and expired invitations (`GET /v1/organizations/{orgId}/invitations`), and for every database of the organization (`GET /v1/organizations/{orgId}/databases`)
 * each user and their database permissions (`GET /v1/databases/{databaseId}/users`). A database whose users the key may not read
 * (403) is recorded as not readable rather than failing the whole matrix. Needs org admin.
 */
export const getAccessMatrix: DataSourceFn<GetAccessMatrixArgs, AccessMatrix> = defineDataSource({
  name: "getAccessMatrix",
  args: getAccessMatrixArgs,
  read: async (args, { client, reading, readFailure, callOptions }) => {
    const { organizationId } = args;
    const [org, memberList, invitationData, databaseList] = await Promise.all([
      reading(`organization ${organizationId}`, () => client.call("GetOrganization", { orgId: organizationId }, undefined, callOptions)),
      reading(`the members of organization ${organizationId}`, () =>
        client.listAll("GetOrganizationUsers", { orgId: organizationId }, callOptions),
      ),
      reading(`the invitations of organization ${organizationId}`, () =>
        client.call("GetOrganizationInvitations", { orgId: organizationId }, undefined, callOptions),
      ),
      reading(`the databases of organization ${organizationId}`, () =>
        client.listAll("GetOrganizationDatabases", { orgId: organizationId }, callOptions),
      ),
    ]);

    const members: AccessMember[] = memberList
      .map((m) => {
        const row: AccessMember = {
          userId: m.id,
          email: m.email,
          firstName: text(m.firstName),
          lastName: text(m.lastName),
          username: text(m.username),
          permissions: sortedSet(m.permissions),
        };
        if (args.includeActivity) row.lastActivity = m.lastActivity ?? null;
        return row;
      })
      .sort((a, b) => compareText(a.email.toLowerCase(), b.email.toLowerCase()) || a.userId - b.userId);
    const memberById = new Map(members.map((m) => [m.userId, m]));

    const invitations: AccessInvitation[] = invitationData.invitations
      .map((i) => ({
        email: i.email,
        firstName: text(i.firstName),
        lastName: text(i.lastName),
        status: (i.expired ? "expired" : "pending") as AccessInvitation["status"],
        expiration: i.expiration,
        organizationPermissions: sortedSet(i.organizationPermissions),
      }))
      .sort((a, b) => compareText(a.email.toLowerCase(), b.email.toLowerCase()) || compareText(a.status, b.status));

    const sortedDatabases = [...databaseList].sort((a, b) => a.id - b.id);
    const databases = await mapLimit(sortedDatabases, 4, async (db): Promise<AccessDatabase> => {
      const base = { databaseId: db.id, name: db.name, orgAdminAccess: db.orgAdminAccess };
      let users;
      try {
        users = await client.listAll("GetDatabaseUsers", { databaseId: db.id }, callOptions);
      } catch (err) {
        if (err instanceof ApiError && err.status === 403) {
          const why = db.orgAdminAccess
            ? "the key is neither DB_ADMIN on it nor org admin of its owner"
            : "orgAdminAccess is off and the key is not DB_ADMIN on it";
          return { ...base, readable: false, notReadable: `not readable with this key (${answerText(err)}: ${why})`, users: [] };
        }
        throw readFailure(`the users of database ${db.id}`, err);
      }
      const rows: AccessDatabaseUser[] = users
        .map((u) => {
          const member = memberById.get(u.user.id);
          return {
            userId: u.user.id,
            email: member?.email ?? (typeof u.user.email === "string" ? u.user.email : null),
            username: text(u.user.username),
            firstName: text(u.user.firstName),
            lastName: text(u.user.lastName),
            member: member !== undefined,
            active: u.active,
            permissions: sortedSet(u.permissions),
          };
        })
        .sort((a, b) => compareText(personKey(a.email, a.username), personKey(b.email, b.username)) || a.userId - b.userId);
      return { ...base, readable: true, notReadable: null, users: rows };
    });

    const distinctDbUsers = new Set(databases.flatMap((d) => d.users.map((u) => u.userId)));
    return {
      organization: { id: org.id, name: org.name },
      summary: {
        members: members.length,
        orgAdmins: members.filter((m) => administers("organization", m.permissions)).length,
        pendingInvitations: invitations.filter((i) => i.status === "pending").length,
        expiredInvitations: invitations.filter((i) => i.status === "expired").length,
        databases: databases.length,
        unreadableDatabases: databases.filter((d) => !d.readable).length,
        databaseUsers: distinctDbUsers.size,
      },
      members,
      invitations,
      databases,
      ...(args.walls ? { walls: wallsOf(args.walls, members, databases) } : {}),
    };
  },
});

/** The Output form of getAccessMatrix, for a Pulumi program (Input arguments; unknown in a preview while one of them is). */
export const getAccessMatrixOutput = outputForm(getAccessMatrix);

// ------------------------------------------------------------------------------------------------
// Renderers
// ------------------------------------------------------------------------------------------------

function displayName(first: string, last: string): string {
  return [first, last].filter((s) => s !== "").join(" ");
}

/** The CSV columns of toCsv, in order. */
const ACCESS_CSV_COLUMNS = [
  "scope",
  "scopeId",
  "scopeName",
  "userId",
  "email",
  "username",
  "name",
  "status",
  "permissions",
  "note",
] as const;

/**
 * The matrix as CSV (RFC 4180, `\n` line ends), one line per grant: organization members, then
 * invitations, then each database's users (a database not readable with the key is one line with
 * status `not readable`). Permissions are joined with `;`. Deterministic: the same access gives
 * the same bytes.
 */
export function toCsv(matrix: AccessMatrix): string {
  const org = matrix.organization;
  const lines = [ACCESS_CSV_COLUMNS.join(",")];
  const row = (fields: string[]) => lines.push(csvLine(fields));
  for (const m of matrix.members) {
    row([
      "organization",
      String(org.id),
      org.name,
      String(m.userId),
      m.email,
      m.username,
      displayName(m.firstName, m.lastName),
      "member",
      m.permissions.join(";"),
      "",
    ]);
  }
  for (const i of matrix.invitations) {
    row([
      "organization",
      String(org.id),
      org.name,
      "",
      i.email,
      "",
      displayName(i.firstName, i.lastName),
      `invitation ${i.status}`,
      i.organizationPermissions.join(";"),
      `expires ${i.expiration}`,
    ]);
  }
  for (const d of matrix.databases) {
    if (!d.readable) {
      row(["database", String(d.databaseId), d.name, "", "", "", "", "not readable", "", d.notReadable ?? ""]);
      continue;
    }
    for (const u of d.users) {
      row([
        "database",
        String(d.databaseId),
        d.name,
        String(u.userId),
        u.email ?? "",
        u.username,
        displayName(u.firstName, u.lastName),
        u.active ? "active" : "inactive",
        u.permissions.join(";"),
        u.member ? "" : "not a member of the organization",
      ]);
    }
  }
  return lines.join("\n") + "\n";
}

function table(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.map(md).join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.map(md).join(" | ")} |`),
  ];
}

function list(items: readonly string[]): string {
  return items.length === 0 ? "—" : items.join(", ");
}

/**
 * The matrix as Markdown: a summary, the members, the invitations, each database's users (or
 * why it could not be read), and a person × database grid. Deterministic like toCsv.
 */
export function toMarkdown(matrix: AccessMatrix): string {
  const { organization: org, summary: s } = matrix;
  const out: string[] = [];
  out.push(`# Access review: ${md(org.name)} (organization ${org.id})`, "");
  out.push(
    `- Members: ${s.members} (${s.orgAdmins} org admin${s.orgAdmins === 1 ? "" : "s"})`,
    `- Invitations: ${s.pendingInvitations} pending, ${s.expiredInvitations} expired`,
    `- Databases: ${s.databases}${s.unreadableDatabases > 0 ? ` (${s.unreadableDatabases} not readable with this key)` : ""}`,
    `- Users with database permissions: ${s.databaseUsers}`,
    "",
  );

  out.push("## Organization members", "");
  if (matrix.members.length === 0) out.push("_None._");
  else
    out.push(
      ...table(
        ["Email", "Name", "User id", "Organization permissions"],
        matrix.members.map((m) => [m.email, displayName(m.firstName, m.lastName), String(m.userId), list(m.permissions)]),
      ),
    );
  out.push("");

  out.push("## Invitations", "");
  if (matrix.invitations.length === 0) out.push("_None._");
  else {
    out.push(
      ...table(
        ["Email", "Name", "Status", "Expires", "Organization permissions"],
        matrix.invitations.map((i) => [
          i.email,
          displayName(i.firstName, i.lastName),
          i.status,
          i.expiration,
          list(i.organizationPermissions),
        ]),
      ),
    );
  }
  out.push("");

  out.push("## Databases", "");
  if (matrix.databases.length === 0) out.push("_None._", "");
  for (const d of matrix.databases) {
    out.push(`### ${md(d.name)} (database ${d.databaseId})`, "", `orgAdminAccess: ${d.orgAdminAccess ? "on" : "off"}`, "");
    if (!d.readable) out.push(`_${md(d.notReadable ?? "not readable with this key")}_`);
    else if (d.users.length === 0) out.push("_No user holds database permissions._");
    else {
      out.push(
        ...table(
          ["User", "Name", "User id", "Active", "Database permissions", "Member"],
          d.users.map((u) => [
            u.email ?? u.username,
            displayName(u.firstName, u.lastName),
            String(u.userId),
            u.active ? "yes" : "no",
            list(u.permissions),
            u.member ? "yes" : "no",
          ]),
        ),
      );
    }
    out.push("");
  }

  if (matrix.walls?.length) {
    out.push("## Ethical walls", "");
    const finding = (f: AccessWallFinding) => `${f.email} (user ${f.userId}): ${list(f.permissions)} on database ${f.databaseId}`;
    out.push(
      ...table(
        ["Wall", "Reason", "Databases", "People", "State", "Findings"],
        matrix.walls.map((w) => [
          w.name,
          w.reason,
          list(w.databaseIds.map(String)),
          w.team ? `team: ${list(w.team)}${w.alsoAllowed?.length ? `; also allowed: ${list(w.alsoAllowed)}` : ""}` : list(w.people ?? []),
          w.state,
          list([
            ...w.breaches.map((f) => `breach: ${finding(f)}`),
            ...w.unenforceable.map((f) => `unenforceable (orgAdminAccess on): ${finding(f)}`),
            ...w.notChecked.map((id) => `database ${id} not checked (not readable with this key, or not this organization's)`),
          ]),
        ]),
      ),
      "",
    );
  }

  // Person × database grid: members and every database user, by label.
  if (matrix.databases.length > 0) {
    const people = new Map<number, { label: string; org: string }>();
    for (const m of matrix.members) people.set(m.userId, { label: m.email, org: list(m.permissions) });
    for (const d of matrix.databases) {
      for (const u of d.users) if (!people.has(u.userId)) people.set(u.userId, { label: u.email ?? u.username, org: "not a member" });
    }
    const order = [...people.entries()].sort(([ia, a], [ib, b]) => compareText(a.label.toLowerCase(), b.label.toLowerCase()) || ia - ib);
    const grants = matrix.databases.map((d) => new Map(d.users.map((u) => [u.userId, u.permissions])));
    out.push("## Matrix", "", "`—` no database permission, `?` not readable with this key.", "");
    out.push(
      ...table(
        ["Person", "Organization", ...matrix.databases.map((d) => `${d.name} (${d.databaseId})`)],
        order.map(([id, p]) => [p.label, p.org, ...matrix.databases.map((d, i) => (!d.readable ? "?" : list(grants[i]!.get(id) ?? [])))]),
      ),
    );
    out.push("");
  }
  return out.join("\n");
}
