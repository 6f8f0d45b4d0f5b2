/**
 * The examples' scenarios under the real Pulumi CLI (test/engine/examples.test.ts registers them, with
 * the built-in routes and with renamed ones): up, a second up with no changes, drift made in the
 * emulator found by refresh and repaired by up, and destroy leaving the emulator as it was, apart
 * from what the resources document as left in place.
 *
 * Each example gets a fresh seeded emulator and a stack of its own; the programs are the
 * examples' own index.ts files, run by the Node.js language host in their folders.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED, startEmulator, type RunningEmulator } from "../../emulator";
import { accessView, describeAccessChanges, type AccessView } from "../../demo/platform";
import { EngineStack, type EngineRunOptions } from "../../harness/engineStack";
import { fieldChanges, outputsAround, type RunResult } from "../../harness/runResult";
import { unpackProps } from "../../contract/packed";
import { invitations, people } from "../../examples/access-baseline/access";
import { control } from "./emulatorHttp";
import { ORDERED } from "./scenario";

export const repoRoot = path.resolve(__dirname, "../..");

/** One registration of the scenarios: its name, and whether it runs at all. */
export interface ScenarioEngine {
  /** Shown in the describe titles, e.g. "engine, renamed routes". */
  name: string;
  /** True to register the tests as skipped: the Pulumi CLI is not on this machine (test/support/engine.ts says why). */
  skip: boolean;
  /** Per-test timeout in ms. */
  timeout?: number;
  /**
   * An OpenAPI document both sides take: the emulator serves its routes (`openapi`) and the stack
   * sets `reviewadmin:openapi` to it. Each example then also checks that every request it made
   * went to the document's paths.
   */
  openapi?: string;
}

/** The entry file of an example, as a user runs it. */
export function programOf(example: string): string {
  return path.join(repoRoot, "examples", example, "index.ts");
}

/** The parts of the emulator's world a program can change, deep-copied and in a stable order. */
export function worldOf(emu: RunningEmulator) {
  const s = structuredClone(emu.store.toJSON());
  const byIds = <T>(items: T[], key: (t: T) => string) => [...items].sort((a, b) => key(a).localeCompare(key(b)));
  return {
    organizations: s.organizations,
    users: byIds(s.users, (u) => String(u.id).padStart(8, "0")),
    memberships: byIds(s.memberships, (m) => `${m.organizationId}/${String(m.userId).padStart(8, "0")}`),
    databases: s.databases,
    databaseUsers: byIds(s.databaseUsers, (d) => `${d.databaseId}/${String(d.userId).padStart(8, "0")}`),
    projects: s.projects,
    invitations: byIds(s.invitations, (i) => String(i.id).padStart(8, "0")),
    directories: s.directories,
  };
}
type World = ReturnType<typeof worldOf>;

/** Steps by resource name: `{ members: "create", ... }`. */
const opsOf = (run: RunResult) => Object.fromEntries(run.steps.map((s) => [s.name, s.op]));
const stepOf = (run: RunResult, name: string) => {
  const step = run.steps.find((s) => s.name === name);
  if (!step) throw new Error(`no step for ${name} in ${run.kind}: ${run.steps.map((s) => s.name).join(", ")}`);
  return step;
};

async function controlOk(emu: RunningEmulator, method: string, route: string, body?: unknown): Promise<void> {
  const res = await control(emu.url, method, route, body);
  expect(res.status, `${method} ${route}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
}

/**
 * A fresh seeded emulator and a stack of one example, torn down after the describe block.
 * `extraConfig` runs in beforeAll (so a skipped block creates nothing).
 */
function exampleStack(engine: ScenarioEngine, example: string, extraConfig: () => Record<string, string> = () => ({})) {
  const ctx = {} as { emu: RunningEmulator; stack: EngineStack; initial: World; up: (opts?: EngineRunOptions) => Promise<RunResult> };
  ctx.up = (opts) => ctx.stack.up(programOf(example), opts);
  beforeAll(async () => {
    if (engine.skip) return;
    ctx.emu = await startEmulator({ rateLimit: 0, ...(engine.openapi ? { openapi: engine.openapi } : {}) });
    ctx.initial = worldOf(ctx.emu);
    ctx.stack = new EngineStack({
      project: example,
      stack: "test",
      config: {
        "reviewadmin:baseUrl": ctx.emu.url,
        "reviewadmin:apiKey": ctx.emu.keys.orgAdmin,
        "reviewadmin:requestsPerSecond": "1000",
        ...(engine.openapi ? { "reviewadmin:openapi": engine.openapi } : {}),
        ...extraConfig(),
      },
      secretConfigKeys: ["reviewadmin:apiKey"],
    });
  }, 120_000);
  afterAll(async () => {
    await ctx.stack?.close();
    await ctx.emu?.close();
  });
  return ctx;
}

/**
 * With an OpenAPI document: every API request of the example went to one of the document's
 * routes (under its path prefix, and routed to an operation: an unrouted path is logged without
 * one), proof the client followed the document rather than the built-in paths.
 */
function documentRoutesOnly(engine: ScenarioEngine, ctx: { emu: RunningEmulator }): void {
  if (!engine.openapi) return;
  // Skipped only when the engine (the Pulumi CLI) is not installed; see ScenarioEngine.skip.
  it.skipIf(engine.skip)(`every request went to the paths of ${path.basename(engine.openapi)}`, () => {
    const api = ctx.emu.traffic.log.list().filter((e) => !e.path.startsWith("/_"));
    expect(api.length).toBeGreaterThan(0);
    const prefix = ctx.emu.routes.prefix;
    expect(prefix).not.toBe("/v1");
    for (const e of api) {
      expect(e.path, JSON.stringify(e)).toMatch(new RegExp(`^${prefix}/`));
      expect(e.operation, JSON.stringify(e)).not.toBeNull();
    }
  });
}

/** Registers the scenarios of every example for one engine. */
export function exampleScenarios(engine: ScenarioEngine): void {
  // Skipped only when the engine (the Pulumi CLI) is not installed; see ScenarioEngine.skip.
  const test = (title: string, fn: () => Promise<void>) => it.skipIf(engine.skip)(title, fn, engine.timeout);

  describe(`access-baseline (${engine.name})`, ORDERED, () => {
    const ctx = exampleStack(engine, "access-baseline", () => ({ "access-baseline:organizationId": String(SEEDED.org) }));
    let first: RunResult;
    let baseline: AccessView;
    const view = () => accessView(ctx.emu.store, SEEDED.org);

    test("up applies the baseline of access.ts: roster, database permissions, invitation", async () => {
      const before = view();
      first = await ctx.up();
      expect(opsOf(first)).toEqual({
        members: "create",
        "frances-db2001": "create",
        "ken-db2001": "create",
        "linus-db2001": "create",
        "invite-priya": "create",
      });
      baseline = view();
      // Exactly what the program changed in the platform.
      expect(describeAccessChanges(before, baseline)).toEqual([
        "~ member barbara@northwind.example: identifiers (none) -> BL",
        "+ member linus@example.com (Linus Torvalds): permissions (none); identifiers (none)",
        "+ invitation priya@northwind.example (pending): permissions LEGAL_HOLD_ADMIN",
        "+ database 2001 (Northwind v. Contoso): frances@northwind.example DB_LEGAL_HOLD",
        "+ database 2001 (Northwind v. Contoso): ken@northwind.example DB_UPLOAD",
        "+ database 2001 (Northwind v. Contoso): linus@example.com DB_UPLOAD",
      ]);
      // The platform holds what access.ts says.
      for (const p of people) {
        const live = baseline.members[p.email];
        expect(live?.permissions, p.email).toEqual([...p.permissions].sort());
        if (p.identifiers) expect(live.identifiers, p.email).toEqual(p.identifiers.map((i) => i.abbreviation).sort());
        for (const [db, perms] of Object.entries(p.databases ?? {}))
          expect(baseline.databases[db].users[p.email]).toEqual([...perms].sort());
      }
      for (const i of invitations) expect(baseline.invitations[i.email]).toEqual({ status: "pending", permissions: i.permissions });
      // Outputs.
      expect(first.outputs.memberStatuses).toEqual(Object.fromEntries(people.map((p) => [p.email, "active"])));
      expect(first.outputs.invitationStatuses).toEqual({ "priya@northwind.example": "pending" });
      expect(first.outputs.databaseGrants).toEqual([
        { email: "frances@northwind.example", databaseId: 2001, permissions: ["DB_LEGAL_HOLD"] },
        { email: "ken@northwind.example", databaseId: 2001, permissions: ["DB_UPLOAD"] },
        { email: "linus@example.com", databaseId: 2001, permissions: ["DB_UPLOAD"] },
      ]);
      expect(first.outputs.notInBaseline).toEqual([
        { email: "grace@northwind.example", status: "active", permissions: [] },
        { email: "late.joiner@northwind.example", status: "expired", permissions: ["LEGAL_HOLD_ADMIN"] },
        { email: "new.hire@northwind.example", status: "invited", permissions: [] },
      ]);
    });

    test("a second up changes nothing", async () => {
      const second = await ctx.up({ expectNoChanges: true });
      expect(new Set(second.steps.map((s) => s.op))).toEqual(new Set(["same"]));
      expect(second.steps).toHaveLength(5);
      // Only the stale-access answer's "as of" (the service's clock) moves.
      const still = (o: Record<string, any>) => ({
        ...o,
        stalePrivilegedPeople: { ...o.stalePrivilegedPeople, asOf: "", windowBegin: "" },
      });
      expect(still(second.outputs)).toEqual(still(first.outputs));
      expect(view()).toEqual(baseline);
    });

    test("drift made in the web application is found by refresh and repaired by up", async () => {
      // As people in the web application would: through the emulator's control API.
      await controlOk(ctx.emu, "PATCH", `/organizations/${SEEDED.org}/members/${SEEDED.users.member}`, { permissions: ["ORG_ADMIN"] });
      await controlOk(ctx.emu, "PATCH", `/organizations/${SEEDED.org}/members/${SEEDED.users.databaseAdmin}`, { userIdentifiers: [] });
      await controlOk(ctx.emu, "DELETE", `/databases/${SEEDED.databases.open}/users/${SEEDED.users.aiAdmin}`);
      await controlOk(ctx.emu, "POST", "/invitations/expire", { organizationId: SEEDED.org, email: "priya@northwind.example" });

      const before = new Map(ctx.stack.state);
      const refresh = await ctx.stack.refresh();
      const changes = (name: string) => {
        const step = stepOf(refresh, name);
        const around = outputsAround(step, before, ctx.stack.state);
        // A roster's maps may be packed text in the state (contract/packed.ts): compared as the maps they hold.
        const kind = step.type.split(":").pop()!;
        return fieldChanges(unpackProps(kind, around.before), unpackProps(kind, around.after));
      };
      expect(opsOf(refresh)).toEqual({
        members: "refresh-changed",
        "frances-db2001": "refresh-same",
        "ken-db2001": "refresh-gone",
        "linus-db2001": "refresh-same",
        "invite-priya": "refresh-changed",
      });
      expect(changes("members")).toEqual([
        'members["alan@northwind.example"].permissions: [] -> ["ORG_ADMIN"]',
        'members["barbara@northwind.example"].userIdentifiers: [{"abbreviation":"BL","label":"Barbara Liskov"}] -> []',
        // The roster lists the invitation it does not manage among `unmanaged`: expired now.
        'unmanaged[3].status: "invited" -> "expired"',
      ]);
      expect(changes("invite-priya")).toContain('status: "pending" -> "expired"');

      const repair = await ctx.up();
      expect(opsOf(repair)).toEqual({
        members: "update",
        "frances-db2001": "same",
        "ken-db2001": "create",
        "linus-db2001": "same",
        "invite-priya": "update",
      });
      // Back to the baseline (the invitation re-sent: pending again).
      expect(describeAccessChanges(baseline, view())).toEqual([]);
      expect(repair.outputs).toEqual(first.outputs);
      await ctx.up({ expectNoChanges: true });
    });

    test("destroy leaves the emulator as it was, apart from what the roster leaves in place", async () => {
      const destroy = await ctx.stack.destroy();
      expect(destroy.steps.map((s) => s.op)).toEqual(Array(5).fill("delete"));
      // Deleting a roster stops managing the organization and removes nobody: the member it
      // added (Linus) and the identifier it set (Barbara's BL) stay. Everything else (database
      // permissions, the invitation) is gone, so the world is the seeded one plus those two.
      const expected = structuredClone(ctx.initial);
      const barbara = expected.memberships.find((m) => m.organizationId === SEEDED.org && m.userId === SEEDED.users.databaseAdmin)!;
      barbara.userIdentifiers = [{ abbreviation: "BL", label: "Barbara Liskov" }];
      const linus = SEEDED.users.unaffiliated;
      expected.memberships.push({ organizationId: SEEDED.org, userId: linus, permissions: [], userIdentifiers: [] });
      expected.memberships.sort((a, b) => a.organizationId - b.organizationId || a.userId - b.userId);
      expected.users.find((u) => u.id === linus)!.primaryOrganization = SEEDED.org;
      expect(worldOf(ctx.emu)).toEqual(expected);
    });
    documentRoutesOnly(engine, ctx);
  });

  describe(`access-review (${engine.name})`, ORDERED, () => {
    let dir = "";
    let reportPath = "";
    const ctx = exampleStack(engine, "access-review", () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "access-review-"));
      reportPath = path.join(dir, "access-review.md");
      return { "access-review:reportPath": reportPath };
    });
    let first: RunResult;
    let report: string;
    afterAll(() => {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    test("up writes the access matrix and the billing summary as outputs and as a Markdown report, changing nothing", async () => {
      first = await ctx.up();
      expect(first.steps).toEqual([]); // data sources only
      expect(worldOf(ctx.emu)).toEqual(ctx.initial);

      const o = first.outputs as Record<string, any>;
      const members = ctx.emu.store.members.of(SEEDED.org);
      expect(o.accessSummary).toMatchObject({
        members: members.length,
        orgAdmins: 1,
        pendingInvitations: 1,
        expiredInvitations: 1,
        databases: 2,
        unreadableDatabases: 1,
      });
      expect(o.accessMatrix.organization).toEqual({ id: SEEDED.org, name: "Northwind Legal" });
      expect(o.accessMatrix.members.map((m: any) => m.email)).toContain("ada@northwind.example");
      expect(o.accessMatrix.databases.map((d: any) => [d.databaseId, d.readable])).toEqual([
        [2001, true],
        [2002, false],
      ]);
      expect(o.accessCsv).toContain("database,2001,Northwind v. Contoso,");
      expect(o.billingTotals).toHaveLength(3);
      expect(o.billingRows.map((r: any) => r.databaseName)).toContain("Northwind v. Contoso");
      expect(o.billingOverall.peak.total).toBeGreaterThan(0);
      // Stale access as a stack output: the seeded log's privileged people who did nothing in 90
      // days (none in the seeded world; test/engine/staleAccess.test.ts ages the world to find some).
      const store = ctx.emu.store;
      const since = store.clock.now() - 90 * 86_400_000;
      const acted = new Set(
        store.events
          .all()
          .filter((e) => e.organizationId === SEEDED.org && e.timestamp >= since)
          .map((e) => e.userId),
      );
      const privileged = store.members
        .of(SEEDED.org)
        .filter((m) => m.permissions.length > 0 && store.users.get(m.userId).apiKeyOf === undefined);
      expect(o.stalePrivilegedPeople).toMatchObject({ organizationId: SEEDED.org, staleDays: 90, unreadableDatabases: [2002] });
      expect(o.stalePrivilegedPeople.stale.map((p: any) => p.userId).sort()).toEqual(
        privileged
          .map((m) => m.userId)
          .filter((id) => !acted.has(id))
          .sort(),
      );

      expect(o.reportFile).toBe(reportPath);
      report = fs.readFileSync(reportPath, "utf8");
      expect(report).toContain("Northwind Legal");
      expect(report).toContain("ada@northwind.example");
      expect(report).toContain("## Billing, last 3 month(s)");
      expect(report).toContain("| Northwind v. Contoso (2001) |");
      expect(report).toContain(
        "| nvc-wall | Northwind v. Contoso: Ken advised Contoso | 2001 | ken@northwind.example, *@contoso.example | held | — |",
      );
    });

    test("a second up changes nothing: same outputs, same report", async () => {
      const second = await ctx.up({ expectNoChanges: true });
      expect(second.steps).toEqual([]);
      // Only the stale-access answer's "as of" (the service's clock) moves.
      const still = (o: Record<string, any>) => ({
        ...o,
        stalePrivilegedPeople: { ...o.stalePrivilegedPeople, asOf: "", windowBegin: "" },
      });
      expect(still(second.outputs)).toEqual(still(first.outputs));
      expect(fs.readFileSync(reportPath, "utf8")).toBe(report);
    });

    test("a change made in the web application shows in the next review (refresh has no resource to read)", async () => {
      await controlOk(ctx.emu, "POST", `/organizations/${SEEDED.org}/members`, {
        email: "joan@northwind.example",
        firstName: "Joan",
        lastName: "Clarke",
        permissions: ["ORG_ADMIN"],
      });
      const changed = worldOf(ctx.emu);
      const refresh = await ctx.stack.refresh();
      expect(refresh.steps).toEqual([]);
      const next = await ctx.up();
      const o = next.outputs as Record<string, any>;
      expect(o.accessSummary.members).toBe((first.outputs as any).accessSummary.members + 1);
      expect(o.accessSummary.orgAdmins).toBe(2);
      expect(o.accessMatrix.members.find((m: any) => m.email === "joan@northwind.example")?.permissions).toEqual(["ORG_ADMIN"]);
      expect(fs.readFileSync(reportPath, "utf8")).toContain("joan@northwind.example");
      // The review only read.
      expect(worldOf(ctx.emu)).toEqual(changed);
    });

    test("destroy has nothing to delete", async () => {
      const before = worldOf(ctx.emu);
      const destroy = await ctx.stack.destroy();
      expect(destroy.steps).toEqual([]);
      expect(worldOf(ctx.emu)).toEqual(before);
    });
    documentRoutesOnly(engine, ctx);
  });

  describe(`custodian-sync (${engine.name})`, ORDERED, () => {
    const ctx = exampleStack(engine, "custodian-sync");
    let dir = "";
    afterAll(() => {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });
    const csvFile = path.join(repoRoot, "examples/custodian-sync/custodians.csv");
    const directory = () => ctx.emu.store.directories.get(SEEDED.directories.org);
    const custodian = (email: string) => directory().custodians.find((c) => c.email === email);
    let first: RunResult;

    test("up syncs the directory from custodians.csv in the example folder", async () => {
      expect(directory().custodians).toEqual([]);
      first = await ctx.up();
      expect(opsOf(first)).toEqual({ custodians: "create" });
      expect(first.outputs).toMatchObject({ peopleSynced: 7, ignored: [] });
      expect(String(first.outputs.contentHash)).toMatch(/^[0-9a-f]{64}$/);
      const emails = fs
        .readFileSync(csvFile, "utf8")
        .trim()
        .split("\n")
        .slice(1)
        .map((l) => l.split(",")[0].replace(/"/g, ""));
      expect(
        directory()
          .custodians.map((c) => c.email)
          .sort(),
      ).toEqual(emails.sort());
      expect(custodian("sam.okafor@northwind.example")).toMatchObject({
        name: "Sam Okafor",
        department: "Finance, Treasury",
        employeeEndDate: "2024-12-31",
      });
    });

    test("a second up changes nothing", async () => {
      const second = await ctx.up({ expectNoChanges: true });
      expect(opsOf(second)).toEqual({ custodians: "same" });
      // Only the stale-access answer's "as of" (the service's clock) moves.
      const still = (o: Record<string, any>) => ({
        ...o,
        stalePrivilegedPeople: { ...o.stalePrivilegedPeople, asOf: "", windowBegin: "" },
      });
      expect(still(second.outputs)).toEqual(still(first.outputs));
    });

    test("an edit in the web application is invisible to refresh (no read endpoint) and overwritten by the next sync of a changed CSV", async () => {
      // Someone edits a custodian in the web application.
      custodian("ada@northwind.example")!.department = "Marketing";
      ctx.emu.store.changed();

      // The service cannot list a directory's people: refresh keeps the last synced state, and
      // an up with the same file has nothing to send (both documented).
      const refresh = await ctx.stack.refresh();
      expect(opsOf(refresh)).toEqual({ custodians: "refresh-same" });
      await ctx.up({ expectNoChanges: true });
      expect(custodian("ada@northwind.example")!.department).toBe("Marketing");

      // A new HR export arrives (one more person): the whole file is sent again, and the sync
      // overwrites every property of each person in it.
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "custodian-sync-"));
      const edited = path.join(dir, "custodians.csv");
      fs.writeFileSync(
        edited,
        `${fs.readFileSync(csvFile, "utf8")}joan@northwind.example,Joan,Clarke,Review,Reviewer,ada@northwind.example,London,2025-01-06,\n`,
      );
      await ctx.stack.setConfig("custodian-sync:csvPath", edited);
      const sync = await ctx.up();
      expect(opsOf(sync)).toEqual({ custodians: "update" });
      expect(sync.outputs.peopleSynced).toBe(8);
      expect(sync.outputs.contentHash).not.toBe(first.outputs.contentHash);
      expect(custodian("ada@northwind.example")!.department).toBe("Litigation Support");
      expect(custodian("joan@northwind.example")).toMatchObject({ name: "Joan Clarke", department: "Review" });
    });

    test("destroy leaves the directory's people as last synced (the service cannot delete them), and nothing else changed", async () => {
      const synced = structuredClone(directory().custodians);
      const destroy = await ctx.stack.destroy();
      expect(opsOf(destroy)).toEqual({ custodians: "delete" });
      // The warning is in the engine's diagnostics of the resource, though its Delete is the plugin
      // process's first request (whose values came before the provider was loaded: pluginHost.ts).
      const left = destroy.logs.filter((l) => l.line.includes("no endpoint to delete or empty a custodian directory"));
      expect(left).toEqual([
        {
          stream: "stderr",
          line: `CustodianDirectorySync of directory ${SEEDED.directories.org}: the service has no endpoint to delete or empty a custodian directory; its people stay as last synced. Remove them in the web application if needed.`,
          urn: stepOf(destroy, "custodians").urn,
        },
      ]);
      const after = worldOf(ctx.emu);
      expect(after.directories.find((d) => d.id === SEEDED.directories.org)!.custodians).toEqual(synced);
      expect({ ...after, directories: [] }).toEqual({ ...ctx.initial, directories: [] });
    });
    documentRoutesOnly(engine, ctx);
  });
}
