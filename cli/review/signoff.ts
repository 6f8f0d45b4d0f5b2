/**
 * A reviewer's sign-off, checked against the packet and turned into the change of the exported
 * access.ts (export/accessFile.ts writes it one person or grant per line, so the change is a few
 * removed or edited lines): the review ends in a pull request whose `pulumi preview` is the change.
 *
 * The sign-off is a CSV with a header (email, scope, decision, permissions; organization when the
 * packet has several) or JSON (an array of those, or {"decisions": [...]}). scope is
 * "organization", a database (its id, "database <id>" or its name) or "all" (every line of the
 * person's access); decision keep, remove or change; permissions (change only) separated by spaces.
 */
import { DatabasePermission, OrganizationPermission } from "../../contract";
import { UsageError } from "../command";
import type { AccessLine, ReviewPacket } from "./packet";

/** One decision as the reviewer wrote it, with where (for errors). */
export interface Decision {
  where: string;
  organization?: number;
  email: string;
  scope: string;
  decision: "keep" | "remove" | "change";
  permissions: string[];
}

/** Splits CSV text into rows of cells (quotes, doubled quotes, CRLF). */
function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  const endRow = () => {
    row.push(cell);
    rows.push(row);
    row = [];
    cell = "";
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      endRow();
    } else cell += c;
  }
  if (cell !== "" || row.length) endRow();
  return rows.filter((r) => r.some((c) => c.trim() !== ""));
}

/** The decisions of a sign-off file's text (`name` for errors), or a UsageError naming the row and the rule. */
export function parseSignoff(name: string, text: string): Decision[] {
  let records: { where: string; fields: Record<string, unknown> }[];
  if (/^\s*[[{]/.test(text)) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new UsageError(`the sign-off ${name} is not valid JSON: ${(err as Error).message}`);
    }
    const list = Array.isArray(json) ? json : (json as { decisions?: unknown }).decisions;
    if (!Array.isArray(list)) throw new UsageError(`the sign-off ${name} must be a JSON array of decisions, or {"decisions": [...]}`);
    records = list.map((fields, i) => ({ where: `${name} decision ${i + 1}`, fields: (fields ?? {}) as Record<string, unknown> }));
  } else {
    const [header, ...rows] = csvRows(text);
    const cols = (header ?? []).map((h) => h.trim().toLowerCase());
    for (const need of ["email", "scope", "decision"])
      if (!cols.includes(need))
        throw new UsageError(
          `the sign-off ${name} needs a header row with email, scope, decision (and permissions for changes); '${need}' is missing`,
        );
    records = rows.map((r, i) => ({ where: `${name} row ${i + 2}`, fields: Object.fromEntries(cols.map((c, j) => [c, r[j] ?? ""])) }));
  }
  return records.map(({ where, fields }) => {
    const text = (k: string) => (fields[k] === undefined || fields[k] === null ? "" : String(fields[k]).trim());
    const decision = text("decision").toLowerCase();
    if (decision !== "keep" && decision !== "remove" && decision !== "change")
      throw new UsageError(`${where}: decision must be keep, remove or change, got '${text("decision")}'`);
    const email = text("email").toLowerCase();
    if (!email) throw new UsageError(`${where}: email must name a person of the packet (its email, or "user <id>")`);
    const perms = Array.isArray(fields.permissions)
      ? fields.permissions.map(String)
      : text("permissions")
          .split(/[\s;|]+/)
          .filter(Boolean);
    const org = text("organization");
    if (org && !/^\d+$/.test(org)) throw new UsageError(`${where}: organization must be an organization id, got '${org}'`);
    return {
      where,
      ...(org ? { organization: Number(org) } : {}),
      email,
      scope: text("scope") || "organization",
      decision,
      permissions: perms,
    };
  });
}

/** A decision matched to the packet: the organization, the person's user id and the line as reviewed. */
export interface CheckedDecision extends Decision {
  organization: number;
  userId: number | null;
  line: AccessLine;
}

/**
 * Scope "all": one decision for every line of the person's access in the packet (keep or remove
 * only: a change names one permission set, which fits one scope).
 */
function expandAll(decisions: Decision[], packet: ReviewPacket): Decision[] {
  return decisions.flatMap((d) => {
    if (d.scope.toLowerCase() !== "all") return [d];
    if (d.decision === "change") throw new UsageError(`${d.where}: scope all takes keep or remove; a change names one scope`);
    const lines = packet.organizations
      .filter((o) => d.organization === undefined || o.id === d.organization)
      .flatMap((o) => (o.people.find((p) => p.key === d.email)?.lines ?? []).map((l) => ({ o, l })));
    if (lines.length === 0) return [d]; // the checks below say what is wrong
    return lines.map(({ o, l }) => ({ ...d, organization: o.id, scope: l.scope }));
  });
}

/** Checks each decision against the packet: the person, scope and permissions must be there and valid. */
export function checkAgainstPacket(decisions: Decision[], packet: ReviewPacket): CheckedDecision[] {
  const seen = new Set<string>();
  return expandAll(decisions, packet).map((d) => {
    const orgs = packet.organizations.filter(
      (o) => (d.organization === undefined || o.id === d.organization) && o.people.some((p) => p.key === d.email),
    );
    if (orgs.length === 0)
      throw new UsageError(`${d.where}: ${d.email} is not in the packet${d.organization ? ` for organization ${d.organization}` : ""}`);
    if (orgs.length > 1)
      throw new UsageError(`${d.where}: ${d.email} is in organizations ${orgs.map((o) => o.id).join(", ")}: add an organization column`);
    const org = orgs[0]!;
    const person = org.people.find((p) => p.key === d.email)!;
    const byId = /^(?:database )?(\d+)$/.exec(d.scope);
    const line =
      d.scope.toLowerCase() === "organization"
        ? person.lines.find((l) => l.scope === "organization")
        : person.lines.find((l) => (byId ? l.scope === `database ${byId[1]}` : l.database?.toLowerCase() === d.scope.toLowerCase()));
    if (!line) {
      const has = person.lines.map((l) => (l.database ? `${l.scope} (${l.database})` : l.scope)).join(", ");
      throw new UsageError(`${d.where}: scope must be one where ${d.email} has access in the packet (${has}), got '${d.scope}'`);
    }
    const id = `${org.id} ${d.email} ${line.scope}`;
    if (seen.has(id))
      throw new UsageError(`${d.where}: a second decision for ${d.email} on ${line.scope}: one decision per person and scope`);
    seen.add(id);
    if (d.decision === "change") {
      const allowed: readonly string[] = line.status === "granted" ? DatabasePermission.options : OrganizationPermission.options;
      const bad = d.permissions.filter((x) => !allowed.includes(x));
      if (bad.length)
        throw new UsageError(`${d.where}: permissions must be of ${allowed.join(", ")} on ${line.scope}, got ${bad.join(", ")}`);
      if (line.status === "granted" && d.permissions.length === 0)
        throw new UsageError(`${d.where}: a change to no database permissions is a remove: write decision remove`);
    } else if (d.permissions.length) throw new UsageError(`${d.where}: permissions are given with decision change only, not ${d.decision}`);
    return { ...d, organization: org.id, userId: person.userId, line };
  });
}

const perms = (list: readonly string[]) =>
  `[${[...list]
    .sort()
    .map((p) => JSON.stringify(p))
    .join(", ")}]`;

/** Where a decision's line sits in access.ts: its index and how to rewrite its permissions. */
function locate(lines: string[], d: CheckedDecision): { index: number; current: string[] } {
  const section =
    d.line.status === "member"
      ? "members"
      : d.line.status === "invited"
        ? "invitations"
        : d.line.status === "invitation-expired"
          ? "expiredInvitations"
          : "databases";
  const db = /^database (\d+)$/.exec(d.line.scope)?.[1];
  let org: number | undefined;
  let sec: string | undefined;
  let dbId: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const o = /^ {4}id: (\d+),$/.exec(l);
    if (o) {
      org = Number(o[1]);
      sec = undefined;
    }
    const s = /^ {4}(members|invitations|expiredInvitations|databases): \[/.exec(l);
    if (s) sec = s[1];
    const dbm = /^ {8}id: (\d+),$/.exec(l);
    if (dbm) dbId = dbm[1];
    if (org !== d.organization || sec !== section) continue;
    if (section !== "databases" && l.startsWith(`      { email: ${JSON.stringify(d.email)},`)) {
      return { index: i, current: JSON.parse(/permissions: (\[[^\]]*\])/.exec(l)![1]!) as string[] };
    }
    if (section === "databases" && dbId === db && d.userId !== null) {
      const g = new RegExp(`^ {10}${d.userId}: (\\[[^\\]]*\\]),`).exec(l);
      if (g) return { index: i, current: JSON.parse(g[1]!) as string[] };
    }
  }
  throw new UsageError(
    `${d.where}: the access file holds no line for ${d.email} on ${d.line.scope} of organization ${d.organization}: it is older or newer than the packet (export and review the same world)`,
  );
}

/** What applying a sign-off did. */
export interface SignoffResult {
  text: string;
  removed: string[];
  changed: string[];
  kept: number;
}

/** access.ts with the decisions applied: removed lines deleted, changed lines' permissions rewritten. Refuses when the file and the packet disagree. */
export function applyToAccessFile(source: string, decisions: CheckedDecision[]): SignoffResult {
  const lines = source.split("\n");
  const drop = new Set<number>();
  const result: SignoffResult = { text: "", removed: [], changed: [], kept: 0 };
  for (const d of decisions) {
    if (d.decision === "keep") {
      result.kept++;
      continue;
    }
    const { index, current } = locate(lines, d);
    if (perms(current) !== perms(d.line.permissions))
      throw new UsageError(
        `${d.where}: the access file gives ${d.email} ${perms(current)} on ${d.line.scope}, the packet ${perms(d.line.permissions)}: export and review the same world`,
      );
    const label = `${d.email} on ${d.line.scope} of organization ${d.organization}`;
    if (d.decision === "remove") {
      drop.add(index);
      result.removed.push(label);
    } else {
      lines[index] =
        d.line.status === "granted"
          ? lines[index]!.replace(/^( {10}\d+: )\[[^\]]*\]/, `$1${perms(d.permissions)}`)
          : lines[index]!.replace(/permissions: \[[^\]]*\]/, `permissions: ${perms(d.permissions)}`);
      result.changed.push(`${label}: ${perms(d.line.permissions)} -> ${perms(d.permissions)}`);
    }
  }
  result.text = lines.filter((_, i) => !drop.has(i)).join("\n");
  return result;
}
