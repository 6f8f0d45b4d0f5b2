/**
 * The checks of `pulumi-reviewadmin doctor`, read-only calls only: who the key acts as (E2),
 * what it sees (E3) and administers (E1), where its org admin role is real (E18, one member read
 * per organization), its own permissions there (E21), and where it can manage database users
 * (E23, one read per database). Every answer is also a check of the route itself: a path the
 * region does not serve, or an answer of another shape, is reported with the route.
 *
 * Inference where no read-only call can tell, and said so in the report:
 * - An organization-level key has no user of its own. When E2 answers with an identity that is
 *   org admin of an organization but not its member (E21 on itself: 404), or answers no user at
 *   all (a 403/404 with the API's error body), the key is read as an organization-level key.
 * - LEGAL_HOLD_ADMIN (CustodianDirectorySync) and DB_UPLOAD (Dataset, SourceFile) of a user who
 *   is not org admin cannot be read with the user's own key: the API shows organization
 *   permissions to org admins only, and E1 lists administered databases only. They are "maybe".
 */
import {
  accessText,
  API_KEY_SHAPE_TEXT,
  keyIdOf,
  routes,
  type Database,
  type OperationId,
  type Organization,
  type User,
} from "../../contract";
import { fullName } from "../../contract/people";
import { ApiError, InsecureUrlError, NetworkError, ResponseValidationError, ReviewAdminClient } from "../../provider/client";
import { routeTableFor } from "../../provider/client/routeTables";
import { CONFIG_NAMESPACE, resolveSettings, settingsFromConfig, SettingsError, SETTINGS, type Settings } from "../../provider/settings";
import { answerText, connectionHint, failureKind, REMEDIES, type FailureKind } from "../../provider/failures";
import { oneLine } from "../../provider/util";
import { plural } from "../command";
import type { Capability, DatabaseAccess, DoctorReport, Identity, OrganizationAccess, RouteCheck, Severity } from "./report";
import type { StackSettings } from "./stackConfig";

/** The service's rate limit: 25 requests per second per authenticating user account (spec, Limits). */
export const SERVICE_RATE_LIMIT = 25;
/** At most this many organizations, and as many databases, are probed one call each; the rest is inferred. */
export const PROBE_LIMIT = 20;

/** Options of diagnose(); settings otherwise come from the environment, as for any script. */
export interface DiagnoseOptions {
  /** Overrides REVIEWADMIN_BASE_URL, to try another region's address with the same key. */
  baseUrl?: string;
  /**
   * The key is meant for CustodianDirectorySync only (a LEGAL_HOLD_ADMIN's key): a member of an
   * organization with no visible admin right is then a warning, not an error, since the API
   * shows LEGAL_HOLD_ADMIN to org admins only.
   */
  custodiansOnly?: boolean;
  /** A stack's `reviewadmin:*` settings (stackConfig.ts): they win over the environment, as in the provider. */
  stack?: StackSettings;
}

function outcomeOf(err: unknown): string {
  if (err instanceof ApiError) return String(err.status);
  if (err instanceof ResponseValidationError) return "2xx of another shape";
  if (err instanceof NetworkError) return err.causeCode;
  return "failed";
}

/** What came back, for a person: "404 with an HTML page", "200 whose data.id is missing", "no answer (...)". */
function outcomeText(err: unknown): string {
  if (err instanceof ApiError) return oneLine(answerText(err), 140);
  if (err instanceof ResponseValidationError) return `a success whose field '${err.fieldPath}' ${oneLine(err.rule, 120)}`;
  // The message is "<op> <METHOD> <path>: <code> <what happened>"; keep what follows the path.
  if (err instanceof NetworkError) return `no answer (${oneLine(err.message.replace(/^.*?: /, ""), 160)})`;
  return oneLine(err instanceof Error ? err.message : String(err), 200);
}

/** A URL to print: origin and path only, never a user name or password (there should be none). */
function shownUrl(text: string): string {
  try {
    const u = new URL(text);
    return u.origin + u.pathname.replace(/\/+$/, "");
  } catch {
    return "(not a valid URL)";
  }
}

/** The doctor's own remedies; those of a failed call are the package's (REMEDIES in provider/failures.ts). */
const FIX = {
  routes:
    "compare the routes with the vendor's OpenAPI document: `pulumi-reviewadmin routes --openapi FILE`; when they differ, set REVIEWADMIN_OPENAPI (reviewadmin:openapi in a stack) to the document",
  orgAdmin: "use an organization-level key (it carries the org admin role) or the key of an org admin of the organizations to manage",
};

/** Runs the checks with the configured settings; never throws for a problem of the key or the service (it is in `problems`). */
export async function diagnose(opts: DiagnoseOptions = {}): Promise<DoctorReport> {
  const started = performance.now();
  const report: DoctorReport = {
    ok: false,
    organizations: [],
    databases: [],
    capabilities: [],
    rate: {
      configured: SERVICE_RATE_LIMIT,
      serviceLimit: SERVICE_RATE_LIMIT,
      spent: { requests: 0, retries: 0, throttled: 0, seconds: 0 },
    },
    routes: [],
    problems: [],
  };
  const add = (severity: Severity, code: string, message: string, fix: string) => report.problems.push({ severity, code, message, fix });
  const finish = () => {
    report.ok = !report.problems.some((p) => p.severity === "error");
    report.rate.spent.seconds = (performance.now() - started) / 1000;
    return report;
  };

  let settings: Settings;
  const fromStack = opts.stack ? opts.stack.values : {};
  try {
    // The stack's config as a run's Configure would take it; the environment fills the rest.
    const stack = settingsFromConfig((key) => fromStack[key]);
    settings = resolveSettings(opts.baseUrl !== undefined ? { ...stack, baseUrl: opts.baseUrl } : stack);
  } catch (err) {
    if (!(err instanceof SettingsError)) throw err;
    settingsProblem(err, add, opts.stack);
    return finish();
  }
  // Where each setting in use came from: what wins in resolveSettings, said the same way.
  const source = (key: keyof typeof SETTINGS) =>
    key === "baseUrl" && opts.baseUrl !== undefined
      ? "--base-url"
      : fromStack[key] !== undefined && fromStack[key] !== ""
        ? `stack ${opts.stack!.stack}: ${CONFIG_NAMESPACE}:${key}`
        : process.env[SETTINGS[key].env]
          ? SETTINGS[key].env
          : undefined;
  report.settingsFrom = Object.fromEntries(
    (["apiKey", "baseUrl", "requestsPerSecond", "openapi"] as const).flatMap((k) => (source(k) ? [[k, source(k)!]] : [])),
  );
  report.baseUrl = shownUrl(settings.baseUrl);
  report.baseUrlFrom = source("baseUrl");
  if (settings.openapi !== undefined) report.openapi = settings.openapi;
  report.keyId = keyIdOf(settings.apiKey);
  if (report.keyId === undefined) {
    add(
      "warning",
      "key-shape",
      `the key does not have the shape ${API_KEY_SHAPE_TEXT}, so no part of it is shown`,
      "copy the whole key again, without quotes, spaces or line breaks",
    );
  }
  report.rate.configured = settings.requestsPerSecond ?? SERVICE_RATE_LIMIT;
  if (report.rate.configured > SERVICE_RATE_LIMIT) {
    add(
      "warning",
      "rate-above-limit",
      `REVIEWADMIN_REQUESTS_PER_SECOND is ${report.rate.configured}, above the service's ${SERVICE_RATE_LIMIT} requests per second per user account: large runs will meet 429 answers and wait`,
      `set it to ${SERVICE_RATE_LIMIT} or less (less when other tools share the account)`,
    );
  }

  let client: ReviewAdminClient;
  try {
    client = new ReviewAdminClient({
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey,
      requestsPerSecond: report.rate.configured,
      // A doctor should answer fast: a few tries, a short wait for each.
      maxAttempts: Math.min(settings.maxAttempts ?? 3, 3),
      timeoutMs: (settings.requestTimeoutSeconds ?? 15) * 1000,
      deadlineMs: (settings.deadlineSeconds ?? 30) * 1000,
      openapi: settings.openapi,
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/apiKey/.test(message)) {
      add(
        "error",
        "key-text",
        "the key holds characters a key cannot have (spaces, line breaks or non-ASCII)",
        "copy the whole key again, without quotes, spaces or line breaks",
      );
    } else {
      const fix =
        err instanceof InsecureUrlError
          ? `use the https:// address of your region's API; ${REMEDIES["not-the-api"]}`
          : REMEDIES["not-the-api"];
      add("error", "bad-base-url", `the base URL ${report.baseUrl} cannot be used: ${message}`, fix);
    }
    return finish();
  }
  report.baseUrl = client.baseUrl;

  try {
    await runChecks(client, report, add, opts.custodiansOnly ?? false);
  } finally {
    const stats = client.stats;
    report.rate.spent = { ...report.rate.spent, requests: stats.requests, retries: stats.retries, throttled: stats.throttled };
    await client.close();
  }
  if (report.rate.spent.throttled > 0) {
    add(
      "warning",
      "throttled",
      `the service answered 429 (rate limited) ${plural(report.rate.spent.throttled, "time")} to this check's few calls`,
      REMEDIES.throttled,
    );
  }
  const odd = report.routes.filter((r) => !r.asExpected);
  if (odd.length > 0 && report.problems.every((p) => p.severity !== "error")) {
    add(
      "warning",
      "route-unexpected",
      `${odd.map((r) => `${r.method} ${r.path}`).join(", ")} did not answer as the route table expects (see routes above)`,
      FIX.routes,
    );
  }
  return finish();
}

function settingsProblem(
  err: SettingsError,
  add: (s: Severity, code: string, message: string, fix: string) => void,
  stack: StackSettings | undefined,
): void {
  const where = (key: "apiKey" | "baseUrl") =>
    stack ? `stack ${stack.stack}'s ${CONFIG_NAMESPACE}:${key}, nor ${SETTINGS[key].env}` : SETTINGS[key].env;
  if (/no API key/.test(err.message)) {
    add(
      "error",
      "no-key",
      `no API key is set (${where("apiKey")})`,
      stack
        ? `pulumi config set --secret ${CONFIG_NAMESPACE}:apiKey <key> (the doctor reads the stack's config, as pulumi up does)`
        : `in a Pulumi project the doctor reads the selected stack's config (or --stack NAME); elsewhere: export ${SETTINGS.apiKey.env}=<key>`,
    );
  } else if (/no base URL/.test(err.message)) {
    add(
      "error",
      "no-base-url",
      `no base URL is set (${where("baseUrl")}); keys are per region, so there is no default`,
      stack
        ? `pulumi config set ${CONFIG_NAMESPACE}:baseUrl https://<your region's API host>, or pass --base-url`
        : `export ${SETTINGS.baseUrl.env}=https://<your region's API host>, or pass --base-url`,
    );
  } else if (err.message.includes(SETTINGS.openapi.env)) {
    add(
      "error",
      "openapi-unusable",
      err.message.replace(/^reviewadmin: /, "").replace(/\. Compare it with the built-in routes: .*$/, ""),
      `correct the document (it is yours to edit: add the operations it lacks, or correct their operationId) or unset ${SETTINGS.openapi.env}; \`pulumi-reviewadmin routes --openapi FILE\` shows every operation against it`,
    );
  } else {
    add("error", "bad-setting", err.message.replace(/^reviewadmin: /, ""), "correct the setting it names");
  }
}

/** A call's result: its data, or the failure and its kind. */
type Outcome<T> = { ok: true; data: T } | { ok: false; err: unknown; kind: FailureKind };

/** The checks that need the service; they stop at the first problem that makes the rest meaningless. */
async function runChecks(
  client: ReviewAdminClient,
  report: DoctorReport,
  add: (s: Severity, code: string, message: string, fix: string) => void,
  custodiansOnly: boolean,
): Promise<void> {
  const base = report.baseUrl!;

  /** Calls `op`, records the route check; `allowed` lists the failures this call may meet as a normal answer. */
  async function probe<T>(op: OperationId, run: () => Promise<T>, allowed: FailureKind[] = [], note?: string): Promise<Outcome<T>> {
    // The method and path the client sends: the OpenAPI document's when one is set.
    const route = routeTableFor(report.openapi).routes[op];
    const called = { id: route.id, operationId: op, method: route.method, path: route.path };
    try {
      const data = await run();
      report.routes.push({ ...called, outcome: "ok", asExpected: true });
      return { ok: true, data };
    } catch (err) {
      const kind = failureKind(err);
      const check: RouteCheck = { ...called, outcome: outcomeOf(err), asExpected: allowed.includes(kind) };
      // An allowed failure gets the caller's reading of it; any other, what the service said.
      const said = check.asExpected ? note : outcomeText(err);
      if (said) check.note = said;
      report.routes.push(check);
      return { ok: false, err, kind };
    }
  }

  /** Adds the problem a failure of a call every valid key may make stands for; true when nothing more can be checked. */
  function blocking(op: OperationId, out: { err: unknown; kind: FailureKind }): boolean {
    // The method and path the client sent: the OpenAPI document's when one is set (read already, so this cannot throw).
    const route = routeTableFor(report.openapi).routes[op];
    const what = `${route.method} ${route.path}`;
    switch (out.kind) {
      case "rejected":
        add(
          "error",
          "key-rejected",
          `the service at ${base} does not accept this key: ${what} answered ${outcomeText(out.err)}`,
          REMEDIES.rejected,
        );
        return true;
      case "not-the-api":
        add(
          "error",
          "not-the-api",
          `${base} does not answer like the administration API: ${what} answered ${outcomeText(out.err)}`,
          REMEDIES["not-the-api"],
        );
        return true;
      case "unreachable":
        add(
          "error",
          "unreachable",
          `nothing answers at ${base}: ${what} got ${outcomeText(out.err)}`,
          (out.err instanceof NetworkError && connectionHint(out.err.causeCode)) || REMEDIES.unreachable,
        );
        return true;
      case "throttled":
        add("error", "throttled", `the service kept answering 429 (rate limited) to ${what}`, REMEDIES.throttled);
        return true;
      case "service-error":
        add("error", "service-error", `the service answered ${outcomeText(out.err)} to ${what}`, REMEDIES["service-error"]);
        return true;
      default:
        add(
          "error",
          "route-unexpected",
          `${what} answered ${outcomeText(out.err)}, which the route table does not expect for any valid key`,
          FIX.routes,
        );
        return true;
    }
  }

  // E2: who the key acts as. An organization-level key may have no user of its own: a 403 or 404
  // in the API's own error shape says so, and the checks go on without an identity.
  const me = await probe(
    "GetCurrentUser",
    () => client.call("GetCurrentUser", {}),
    ["forbidden", "not-found"],
    "no user behind this key: an organization-level key",
  );
  if (!me.ok && me.kind !== "forbidden" && me.kind !== "not-found") {
    blocking("GetCurrentUser", me);
    return;
  }
  const user: User | undefined = me.ok ? me.data : undefined;

  // E3: the organizations it belongs to and their sub-organizations.
  const orgsOut = await probe("GetOrganizations", () => client.listAll("GetOrganizations", {}));
  if (!orgsOut.ok) {
    blocking("GetOrganizations", orgsOut);
    return;
  }
  const organizations = new Map<number, Organization>(orgsOut.data.map((o) => [o.id, o]));
  for (const o of user?.organizations ?? []) if (!organizations.has(o.id)) organizations.set(o.id, { id: o.id, name: o.name });

  // Org admin: where E2 says so (or, without an identity, anywhere visible), confirmed by reading one member (E18).
  const claimed = user ? (user.organizations ?? []).filter((o) => o.orgAdmin).map((o) => o.id) : [...organizations.keys()];
  const admins = new Set<number>();
  for (const [i, orgId] of claimed.entries()) {
    if (i >= PROBE_LIMIT) {
      if (user) admins.add(orgId); // E2 says so; not confirmed by a call
      continue;
    }
    const out = await probe(
      "GetOrganizationUsers",
      () => client.call("GetOrganizationUsers", { orgId, limit: 1 }),
      user ? [] : ["forbidden"],
    );
    if (out.ok) admins.add(orgId);
    else if (user && out.kind === "forbidden") {
      add(
        "warning",
        "org-admin-unconfirmed",
        `GET /v1/users/me says the key's user is org admin of organization ${orgId}, but reading its members (${routes.GetOrganizationUsers.method} ${routes.GetOrganizationUsers.path}) was refused`,
        "check the user's ORG_ADMIN permission in that organization in the web application",
      );
    } else if (out.kind !== "forbidden" && blocking("GetOrganizationUsers", out)) return;
  }
  if (!user && claimed.length > PROBE_LIMIT) {
    add(
      "warning",
      "not-all-probed",
      `only the first ${PROBE_LIMIT} of ${claimed.length} organizations were checked for the org admin role`,
      "nothing to fix; the others may be administered too",
    );
  }

  // The key's own permissions in the organizations it administers (E21 on itself); a 404 there
  // means its identity is no member: an organization-level key.
  const permissions = new Map<number, string[]>();
  let memberSomewhere = false;
  let identityOutside = !user;
  if (user) {
    for (const orgId of [...admins].slice(0, PROBE_LIMIT)) {
      const out = await probe(
        "GetOrganizationUser",
        () => client.call("GetOrganizationUser", { orgId, userId: user.id }),
        ["not-found"],
        "the key's identity is no member: an organization-level key",
      );
      if (out.ok) {
        memberSomewhere = true;
        permissions.set(orgId, [...out.data.permissions].sort());
      } else if (out.kind === "not-found") identityOutside = true;
      else if (blocking("GetOrganizationUser", out)) return;
    }
  }
  const isOrgKey = !user || (identityOutside && !memberSomewhere && (user.organizations ?? []).every((o) => o.orgAdmin));
  report.identity = identityOf(user, isOrgKey);

  for (const org of [...organizations.values()].sort((a, b) => a.id - b.id)) {
    const roles: string[] = [];
    if (admins.has(org.id)) roles.push("org admin");
    if (org.parentOrganizationId != null && admins.has(org.parentOrganizationId)) roles.push("parent org admin");
    if (!isOrgKey && (user?.organizations ?? []).some((o) => o.id === org.id)) roles.push("member");
    const access: OrganizationAccess = { id: org.id, name: org.name, roles };
    if (org.parentOrganizationId != null) access.parentOrganizationId = org.parentOrganizationId;
    if (permissions.has(org.id)) access.permissions = permissions.get(org.id);
    report.organizations.push(access);
  }

  // E1: the databases it administers; E23 (one user read) says where it can manage database users.
  const dbsOut = await probe("GetDatabases", () => client.listAll("GetDatabases", {}), ["forbidden"]);
  if (!dbsOut.ok && dbsOut.kind !== "forbidden" && blocking("GetDatabases", dbsOut)) return;
  const databases: Database[] = dbsOut.ok ? [...dbsOut.data].sort((a, b) => a.id - b.id) : [];
  for (const [i, db] of databases.entries()) {
    const viaOrgAdmin = admins.has(db.owningOrganizationId);
    // E1 lists a database for its DB_ADMINs and for org admins of its owner, whatever orgAdminAccess says.
    const inferred: DatabaseAccess["access"] = viaOrgAdmin ? (db.orgAdminAccess ? "org admin" : "summary only") : "DB_ADMIN";
    let access = inferred;
    let confirmed = false;
    if (i < PROBE_LIMIT) {
      const mayRefuse = viaOrgAdmin && !db.orgAdminAccess;
      const out = await probe(
        "GetDatabaseUsers",
        () => client.call("GetDatabaseUsers", { databaseId: db.id, limit: 1 }),
        mayRefuse ? ["forbidden"] : [],
      );
      if (out.ok) {
        access = viaOrgAdmin && db.orgAdminAccess ? "org admin" : "DB_ADMIN";
        confirmed = true;
      } else if (out.kind === "forbidden") {
        access = "summary only";
        confirmed = true;
      } else if (blocking("GetDatabaseUsers", out)) return;
    }
    const usable = access !== "summary only";
    report.databases.push({
      id: db.id,
      name: db.name,
      owningOrganizationId: db.owningOrganizationId,
      orgAdminAccess: db.orgAdminAccess,
      access,
      manageUsers: usable,
      upload: usable,
      confirmed,
    });
  }
  if (databases.length > PROBE_LIMIT) {
    add(
      "warning",
      "not-all-probed",
      `only the first ${PROBE_LIMIT} of ${databases.length} databases were checked with a call; the rest is inferred from the access rules`,
      "nothing to fix",
    );
  }

  report.capabilities = capabilities(report, isOrgKey);
  roleProblems(report, admins, add, custodiansOnly);
}

function identityOf(user: User | undefined, isOrgKey: boolean): Identity {
  if (!user) return { kind: "organization" };
  const name = fullName(user);
  const identity: Identity = { kind: isOrgKey ? "organization" : "user", userId: user.id };
  if (name) identity.name = name;
  if (user.email) identity.email = user.email;
  return identity;
}

/** What each group of resource kinds can do, from the roles found; `needs` quotes the route table. */
function capabilities(report: DoctorReport, isOrgKey: boolean): Capability[] {
  const orgText = (o: OrganizationAccess) => `organization ${o.id} ${o.name}`;
  const dbText = (d: DatabaseAccess) => `database ${d.id} ${d.name}`;
  const adminOrgs = report.organizations.filter((o) => o.roles.includes("org admin"));
  const holdOrgs = report.organizations.filter((o) => !o.roles.includes("org admin") && o.permissions?.includes("LEGAL_HOLD_ADMIN"));
  // A member whose permissions no call could read may hold LEGAL_HOLD_ADMIN there.
  const unknownOrgs = report.organizations.filter(
    (o) => o.roles.includes("member") && !o.roles.includes("org admin") && o.permissions === undefined,
  );
  const readable = report.organizations.filter((o) => o.roles.includes("org admin") || o.roles.includes("parent org admin"));
  return [
    {
      kinds: ["OrgMember", "OrgMemberPermissions", "UserIdentifiers", "Invitation", "OrganizationMembers"],
      where: adminOrgs.map(orgText),
      maybe: [],
      needs: accessText(routes.PostOrganizationUsers),
    },
    {
      kinds: ["DatabaseUserPermissions", "DatabaseUsers", "EthicalWall"],
      where: report.databases.filter((d) => d.manageUsers).map(dbText),
      maybe: [],
      needs: accessText(routes.PutDatabaseUser),
    },
    {
      kinds: ["Dataset", "SourceFile"],
      where: report.databases.filter((d) => d.upload).map(dbText),
      maybe: isOrgKey ? [] : ["databases where the key's user holds DB_UPLOAD (GET /v1/databases lists administered databases only)"],
      needs: accessText(routes.PostDatabaseDataset),
    },
    {
      kinds: ["CustodianDirectorySync"],
      where: [...adminOrgs, ...holdOrgs].map((o) => `directories of ${orgText(o)}`),
      maybe: unknownOrgs.length
        ? [
            `directories of ${unknownOrgs.map(orgText).join(", ")}, if the user holds LEGAL_HOLD_ADMIN there (only org admins can read that permission)`,
          ]
        : [],
      needs: accessText(routes.PostDirectoryCustodians),
    },
    {
      kinds: ["data sources (billing, activity, projects)"],
      where: readable.map(orgText),
      maybe: [],
      needs: accessText(routes.GetOrganizationBilling),
    },
  ];
}

/** Problems of the roles found: no admin right at all (blocks), or a resource family that will be refused. */
function roleProblems(
  report: DoctorReport,
  admins: Set<number>,
  add: (s: Severity, code: string, message: string, fix: string) => void,
  custodiansOnly: boolean,
): void {
  const usableDbs = report.databases.filter((d) => d.manageUsers || d.upload);
  const who =
    report.identity?.kind === "organization"
      ? "this organization-level key"
      : `the key's user${report.identity?.name ? ` (${report.identity.name})` : ""}`;
  if (admins.size === 0 && usableDbs.length === 0) {
    const memberOf = report.organizations.filter((o) => o.roles.includes("member")).map((o) => `${o.id} ${o.name}`);
    const member = memberOf.length ? ` (member of ${memberOf.join(", ")})` : "";
    if (custodiansOnly && memberOf.length > 0) {
      add(
        "warning",
        "legal-hold-unconfirmed",
        `${who} is org admin of no organization${member}: CustodianDirectorySync works only where the user holds LEGAL_HOLD_ADMIN, which the API shows to org admins only, so this check cannot confirm it`,
        "an org admin can check the user's permissions in those organizations (or run this doctor with their key and read the permissions it lists)",
      );
      return;
    }
    add(
      "error",
      "no-admin-right",
      `${who} is org admin of no organization and administers no database${member}: nothing this check can confirm will work with it`,
      `${FIX.orgAdmin}; for database resources only, grant the key's user DB_ADMIN on those databases. A key meant only for CustodianDirectorySync (its user holds LEGAL_HOLD_ADMIN) reads the same, because the API shows that permission to org admins only: check it with --custodians-only`,
    );
    return;
  }
  if (admins.size === 0) {
    add(
      "warning",
      "no-org-admin",
      `${who} is org admin of no organization: OrgMember, OrgMemberPermissions, UserIdentifiers, Invitation and OrganizationMembers will be refused (they need ${accessText(routes.PostOrganizationUsers)})`,
      `${FIX.orgAdmin}; this key works for the databases listed`,
    );
  }
  const closed = report.databases.filter((d) => d.access === "summary only");
  if (closed.length > 0) {
    const names = closed.map((d) => `${d.id} ${d.name}`).join(", ");
    add(
      "warning",
      "org-admin-access-off",
      `org admin access is turned off on database${closed.length > 1 ? "s" : ""} ${names}: DatabaseUserPermissions, DatabaseUsers, Dataset and SourceFile will be refused there (they need ${accessText(routes.PutDatabaseUser)})`,
      "grant a person's key DB_ADMIN on those databases and use it for them, or turn org admin access back on in the database's settings",
    );
  }
}
