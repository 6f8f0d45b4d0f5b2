/**
 * What `pulumi-reviewadmin doctor` found, as data (printed as is by `--json`) and as the few
 * lines a person reads. The checks that fill it are in diagnose.ts.
 */
import { plural } from "../command";

/** How bad a problem is: an `error` blocks use (the exit code is 1), a `warning` limits it. */
export type Severity = "error" | "warning";

/** One thing that is wrong, and what to do about it. */
export interface Problem {
  severity: Severity;
  /** Stable name for scripts, e.g. `key-rejected`, `not-the-api`, `no-admin-right`. */
  code: string;
  /** What is wrong, in one sentence. */
  message: string;
  /** What to do about it. */
  fix: string;
}

/** Who the key acts as, from E2 (GetCurrentUser). */
export interface Identity {
  /** `user`: a person's key; `organization`: an organization-level key (its identity belongs to no organization). */
  kind: "user" | "organization";
  userId?: number;
  name?: string;
  email?: string;
}

/** One organization the key sees (E3), with the key's roles in it. */
export interface OrganizationAccess {
  id: number;
  name: string;
  parentOrganizationId?: number;
  /** `org admin`, `parent org admin`, `member` (a person's key only). */
  roles: string[];
  /** The key's user's organization permissions there, when an org admin's call could read them (E21). */
  permissions?: string[];
}

/** One database the key administers (E1), and what it can do there. */
export interface DatabaseAccess {
  id: number;
  name: string;
  owningOrganizationId: number;
  orgAdminAccess: boolean;
  /** Why it is listed: `DB_ADMIN`, `org admin` (of its owner, with orgAdminAccess), or `summary only`. */
  access: "DB_ADMIN" | "org admin" | "summary only";
  /** DatabaseUserPermissions and DatabaseUsers work here. */
  manageUsers: boolean;
  /** Dataset and SourceFile work here. */
  upload: boolean;
  /** True when a read-only call confirmed `manageUsers`; false when it was inferred from the access rules. */
  confirmed: boolean;
}

/** What some resource kinds (or data sources) can do with this key. */
export interface Capability {
  /** Resource kinds (or `data sources: ...`) sharing one access rule. */
  kinds: string[];
  /** Where they work: "organization 102 Northwind Legal", "database 2001 ..."; empty when nowhere. */
  where: string[];
  /** Where they might work, but read-only calls cannot tell (a permission only org admins can see). */
  maybe: string[];
  /** The access rule, from the route table: what a key needs for them. */
  needs: string;
}

/** One call the doctor made, and whether the answer was what the route table expects. */
export interface RouteCheck {
  /** The spec's row (E2), for tools; people read method and path. */
  id: string;
  operationId: string;
  /** The method and path called (the OpenAPI document's when one is set). */
  method: string;
  path: string;
  /** HTTP status, or the network failure's code (ECONNREFUSED, ...). */
  outcome: string;
  /** False when the answer was not what this route should give (a missing route, another shape). */
  asExpected: boolean;
  note?: string;
}

/** Everything the doctor found. */
export interface DoctorReport {
  /** No `error` problem: the key and base URL can be used. */
  ok: boolean;
  /** The base URL in use (normalized), or as configured when it could not be used. */
  baseUrl?: string;
  /** Where the base URL came from: a stack's config, an environment variable or `--base-url`. */
  baseUrlFrom?: string;
  /** Where each setting in use came from (apiKey, baseUrl, requestsPerSecond, openapi). */
  settingsFrom?: Record<string, string>;
  /** The stack whose config was read, or why none was (then only the environment counts). */
  stack?: { name: string } | { none: string };
  /** The OpenAPI document the routes came from (REVIEWADMIN_OPENAPI), when one is set; else the built-in routes were used. */
  openapi?: string;
  /** The key's middle segment (what the admin UI shows to identify a key); never more of it. */
  keyId?: string;
  identity?: Identity;
  organizations: OrganizationAccess[];
  databases: DatabaseAccess[];
  capabilities: Capability[];
  rate: {
    /** The client-side rate configured (REVIEWADMIN_REQUESTS_PER_SECOND), default 25. */
    configured: number;
    /** The service's limit: 25 requests per second per authenticating user account. */
    serviceLimit: number;
    /** What the doctor itself sent. */
    spent: { requests: number; retries: number; throttled: number; seconds: number };
  };
  routes: RouteCheck[];
  problems: Problem[];
}

const INDENT = 16;
const label = (name: string) => `  ${name.padEnd(INDENT - 2)}`;

/** Lines under one label, the first beside it, the others aligned below. */
function block(name: string, lines: string[]): string[] {
  return lines.map((line, i) => (i === 0 ? label(name) : " ".repeat(INDENT)) + line);
}

function orgLine(o: OrganizationAccess): string {
  const roles = o.roles.length ? o.roles.join(", ") : "no role";
  const perms = o.permissions?.length
    ? ` (permissions: ${o.permissions.join(", ")})`
    : o.permissions
      ? " (no organization permission)"
      : "";
  return `${o.id} ${o.name}: ${roles}${perms}`;
}

function databaseLine(d: DatabaseAccess): string {
  const what =
    d.access === "summary only"
      ? "summary only (orgAdminAccess off, and no DB_ADMIN)"
      : `manage users and upload, as ${d.access === "DB_ADMIN" ? "DB_ADMIN" : `org admin of ${d.owningOrganizationId}`}`;
  return `${d.id} ${d.name} (organization ${d.owningOrganizationId}): ${what}${d.confirmed ? "" : " [inferred]"}`;
}

function capabilityLine(c: Capability): string {
  const where = c.where.length ? c.where.join("; ") : "nowhere";
  const maybe = c.maybe.length ? `; maybe ${c.maybe.join("; ")}` : "";
  return `${c.kinds.join(", ")}: ${where}${maybe}`;
}

/** The report as a few readable lines: what the key is and can do, then each problem with its fix, then the verdict. */
export function formatReport(r: DoctorReport): string {
  const lines: string[] = ["pulumi-reviewadmin doctor"];
  if (r.stack) {
    lines.push(
      ...block("settings", [
        "name" in r.stack ? `stack ${r.stack.name}'s config, then REVIEWADMIN_* variables` : `REVIEWADMIN_* variables (${r.stack.none})`,
        ...Object.entries(r.settingsFrom ?? {}).map(([k, from]) => `${k}: ${from}`),
      ]),
    );
  }
  if (r.baseUrl) lines.push(...block("base URL", [`${r.baseUrl}${r.baseUrlFrom ? ` (${r.baseUrlFrom})` : ""}`]));
  if (r.openapi) lines.push(...block("route table", [`from ${r.openapi} (REVIEWADMIN_OPENAPI)`]));
  if (r.keyId !== undefined) lines.push(...block("key", [`${r.keyId} (the key id; the rest of the key is never shown)`]));
  if (r.identity) lines.push(...block("acts as", [whoText(r.identity, r.organizations)]));
  if (r.organizations.length) lines.push(...block("organizations", r.organizations.map(orgLine)));
  if (r.identity) {
    lines.push(
      ...block("databases", r.databases.length ? r.databases.map(databaseLine) : ["none administered (GET /v1/databases lists none)"]),
    );
  }
  if (r.capabilities.length) lines.push(...block("can manage", r.capabilities.map(capabilityLine)));
  const s = r.rate.spent;
  if (s.requests > 0) {
    const none = (n: number, one: string, many: string) => (n === 0 ? `no ${one}` : plural(n, one, many));
    lines.push(
      ...block("rate", [
        `${r.rate.configured} requests/s configured; the service allows ${r.rate.serviceLimit}/s per user account, shared by everything using that account`,
        `this check sent ${plural(s.requests, "request")} (${none(s.retries, "retry", "retries")}, ${none(s.throttled, "429", "429s")}) in ${s.seconds.toFixed(1)} s`,
      ]),
    );
  }
  if (r.routes.length) {
    const odd = r.routes.filter((c) => !c.asExpected);
    const ops = [...new Set(r.routes.map((c) => `${c.method} ${c.path}`))].join(", ");
    lines.push(
      ...block("routes", [
        odd.length === 0
          ? `${plural(r.routes.length, "read-only call")} answered as expected (${ops})`
          : `${plural(r.routes.length, "read-only call")} (${ops}); ${plural(odd.length, "answer")} not as expected:`,
        ...odd.map((c) => `${c.method} ${c.path}: ${c.note ?? c.outcome}`),
      ]),
    );
  }
  for (const p of r.problems) {
    lines.push("", `${p.severity}: ${p.message}`, `  fix: ${p.fix}`);
  }
  const errors = r.problems.filter((p) => p.severity === "error").length;
  const warnings = r.problems.length - errors;
  lines.push(
    "",
    errors
      ? `NOT READY: ${plural(errors, "problem")} ${errors === 1 ? "blocks" : "block"} use${warnings ? ` (and ${plural(warnings, "warning")})` : ""}`
      : `OK: ready to use${warnings ? ` (${plural(warnings, "warning")})` : ""}`,
  );
  return lines.join("\n") + "\n";
}

function whoText(i: Identity, orgs: OrganizationAccess[]): string {
  const name = i.name ? `${i.name}${i.email ? ` <${i.email}>` : ""}` : (i.email ?? "an identity without a name");
  if (i.kind === "user") return `${name}, user ${i.userId}`;
  const own = orgs.filter((o) => o.roles.includes("org admin")).map((o) => `${o.id} ${o.name}`);
  const of = own.length ? ` of ${own.join(", ")}` : "";
  return i.userId === undefined
    ? `an organization-level key${of} (GET /v1/users/me answers no user for it)`
    : `an organization-level key${of} (GET /v1/users/me: ${name}, user ${i.userId})`;
}
