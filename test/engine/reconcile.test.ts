/**
 * Reviewed = applied (issue 55), under the real Pulumi CLI against the emulator: the seeded world
 * exported (rosters) and adopted, reviewed; a sign-off of two removals, one change and one keep
 * applied to access.ts; the pull request's preview saves the plan (`--save-plan`), the merge's up
 * applies it (`pulumi up --yes --json --plan`, as docs/gitops.md runs it, its output the log); `review reconcile` matches every decision to
 * the resource step that carried it out (and the line the up printed for the person), the plan's
 * step and hash recorded. Then a second sign-off removes Ada, the user of the program's key: the
 * up refuses it (anti-lockout) and reconcile names the refusal; and Alan,
 * put back in the web application by Grace, is "changed again in the web app".
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { linkDependencies, writesIn } from "../../bench/exportedProject";
import { RunError } from "../../harness/runResult";
import { runCli } from "../cli/runCli";
import { control } from "../support/emulatorHttp";
import { useProgramWorld } from "../support/programWorld";
import { programFolder } from "../support/providerWorld";
import { ORDERED } from "../support/scenario";

const PROJECT = "reconcile";
const ORG = SEEDED.org;
const OPEN = SEEDED.databases.open;
const world = useProgramWorld(PROJECT);
const dir = programFolder("reconcile-");

function credentials(): string[] {
  const keyFile = path.join(dir, "key");
  fs.writeFileSync(keyFile, world.emu.keys.orgAdmin!);
  return ["--base-url", world.emu.url, "--api-key-file", keyFile, "--requests-per-second", "1000"];
}

async function cli(args: string[]): Promise<{ out: string; err: string }> {
  const r = await runCli(args);
  expect(r, `${args.slice(0, 2).join(" ")}: ${r.err}`).toMatchObject({ code: 0 });
  return r;
}

/** A sign-off as review.html saves it, of `decisions`. */
function signoff(name: string, decisions: object[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify({ format: "pulumi-reviewadmin sign-off 1", reviewer: "Ada Lovelace", decisions }, null, 2));
  return file;
}

interface Reconciled {
  email: string;
  scope: string;
  decision: string;
  outcome: string;
  now?: string[] | null;
  change?: { resource: string; op: string; said: string[] };
  planned?: string[];
  why?: string;
}

describe("review reconcile: each decision of a month's sign-off matched to what the up did", ORDERED, () => {
  it("two removals, a change and a keep carried out by the reviewed plan; an anti-lockout refusal and a web-app change named", async () => {
    const stack = world.freshStack();
    const project = fs.mkdtempSync(path.join(dir, "project-"));
    const packet = path.join(project, "access-review", "2026-12");
    const common = credentials();
    await cli(["export", ...common, "-q", "--out", project, "--force", "--project", PROJECT]);
    linkDependencies(project);
    const program = path.join(project, "index.ts");
    const access = path.join(project, "access.ts");
    await stack.up(program);
    await cli(["review", ...common, "-q", "--out", packet]);

    const month = signoff("signoff-month.json", [
      { email: "alan@northwind.example", scope: "organization", decision: "remove", justification: "left the firm" },
      { email: "margaret@northwind.example", scope: `database ${OPEN}`, decision: "remove", justification: "matter closed" },
      {
        email: "ken@northwind.example",
        scope: "organization",
        decision: "change",
        permissions: ["LEGAL_HOLD_ADMIN"],
        justification: "new role",
      },
      { email: "ada@northwind.example", scope: "organization", decision: "keep", justification: "the firm's admin" },
    ]);
    await cli(["review", "apply-signoff", "--signoff", month, "--packet", packet, "--access", access]);
    // Before the merge's up nothing has happened yet, and reconcile says so (no --up-log: the service alone).
    const before = await runCli(["review", "reconcile", ...common, "--signoff", month, "--packet", packet]);
    expect(before.code, before.err).toBe(1);
    expect(before.out).toMatch(/\(no --up-log: the changes are not named\): 0 carried out, 1 kept, 3 not carried out\.$/m);
    expect(before.out).toContain(
      "  not yet applied: remove alan@northwind.example on organization of organization 102: nothing changed this line since the review: the sign-off's pull request not merged, its up not run, or the removal's end date not reached",
    );
    // The pull request's preview saves the plan; the merge's up applies exactly it, its events logged.
    const plan = path.join(dir, "plan.json");
    await stack.preview(program, { plan });
    // As docs/gitops.md runs it, by the CLI: `pulumi up --yes --json --plan plan.json`, its stdout the log.
    const events = path.join(dir, "up-events.json");
    world.emu.traffic.log.reset();
    const merged = await stack.cli(["up", "--yes", "--json", "--plan", plan]);
    expect(merged.code, merged.stderr).toBe(0);
    fs.writeFileSync(events, merged.stdout);
    expect(writesIn(world.emu.traffic.log.counters.byOperation)).toMatchObject({ DeleteOrganizationUser: 1, DeleteDatabaseUser: 1 });

    const reconcile = (file: string, log: string, ...more: string[]) =>
      runCli(["review", "reconcile", ...common, "--signoff", file, "--packet", packet, "--up-log", log, ...more]);
    const done = await reconcile(month, events, "--plan", plan);
    expect(done.code, done.err + done.out).toBe(0);
    expect(done.out).toMatch(
      /^Reconciled 4 decisions of .* and the up's log .*, the reviewed plan .* \(SHA-256 [0-9a-f]{64}\): 3 carried out, 1 kept, 0 not carried out\.$/m,
    );
    const record = JSON.parse(fs.readFileSync(path.join(packet, "reconcile.json"), "utf8"));
    expect(record.plan.sha256).toMatch(/^[0-9a-f]{64}$/);
    const by = (email: string) => (record.decisions as Reconciled[]).find((d) => d.email === email)!;
    const organizationRoster = expect.stringMatching(new RegExp(`::organization-${ORG}$`));
    expect(by("alan@northwind.example")).toMatchObject({
      outcome: "carried out",
      now: null,
      change: {
        resource: organizationRoster,
        op: "update",
        // What the up printed for Alan: the plan's line, then what it did.
        said: [
          expect.stringMatching(/^- alan@northwind\.example: no permission \(expired on \d{4}-\d\d-\d\d\)$/),
          expect.stringMatching(
            /^updating OrganizationMembers of organization 102: alan@northwind\.example: expired on \S+, removing them from the organization$/,
          ),
        ],
      },
      planned: ["update"],
    });
    expect(by("margaret@northwind.example")).toMatchObject({
      outcome: "carried out",
      now: null,
      change: { resource: expect.stringMatching(new RegExp(`::database-${OPEN}$`)), op: "update" },
      planned: ["update"],
    });
    expect(by("margaret@northwind.example").change!.said.join("\n")).toMatch(/user 1007\b.*expired on /);
    expect(by("ken@northwind.example")).toMatchObject({
      outcome: "carried out",
      now: ["LEGAL_HOLD_ADMIN"],
      change: { resource: organizationRoster, op: "update" },
    });
    expect(by("ken@northwind.example").change!.said[0]).toMatch(/^~ ken@northwind\.example: AI_ADMIN → LEGAL_HOLD_ADMIN/);
    expect(by("ada@northwind.example")).toMatchObject({ outcome: "kept", now: ["ORG_ADMIN"] });
    const manifest = JSON.parse(fs.readFileSync(path.join(packet, "manifest.json"), "utf8"));
    expect(Object.keys(manifest.files)).toContain("reconcile.json");
    expect(manifest.signoffs).toHaveLength(1);

    // A second sign-off removes Ada, whose key the program uses: anti-lockout refuses it.
    const late = signoff("signoff-late.json", [
      { email: "ada@northwind.example", scope: "organization", decision: "remove", justification: "moves to the parent organization" },
    ]);
    await cli(["review", "apply-signoff", "--signoff", late, "--packet", packet, "--access", access]);
    // This up's log is its engine events, one per line (the Automation API's, as `--event-log` writes them).
    const lateEvents = path.join(dir, "up-late-events.json");
    const refusedUp = await stack.up(program, { continueOnError: true, eventLog: lateEvents }).catch((e: unknown) => e);
    expect(refusedUp).toBeInstanceOf(RunError);
    const refused = await reconcile(late, lateEvents);
    expect(refused.code, refused.err).toBe(1);
    const ada = (JSON.parse(fs.readFileSync(path.join(packet, "reconcile.json"), "utf8")).decisions as Reconciled[])[0]!;
    expect(ada).toMatchObject({ outcome: "refused by anti-lockout", now: ["ORG_ADMIN"], change: { resource: organizationRoster } });
    expect(ada.why).toMatch(
      /refused: it would take ORG_ADMIN from Ada Lovelace <ada@northwind\.example> \(user 1001\), the user of the API key in use, locking this program out of organization 102/,
    );
    expect(refused.out).toContain("  refused by anti-lockout: remove ada@northwind.example on organization of organization 102: ");

    // Grace puts Alan back in the web application: the month's removal was carried out, then undone.
    world.emu.store.clock.advance(2_000);
    const back = await control(world.emu.url, "POST", `/organizations/${ORG}/members`, {
      email: "alan@northwind.example",
      permissions: [],
      actingUserId: SEEDED.users.parentAdminUser,
    });
    expect(back.status, JSON.stringify(back.body)).toBe(201);
    const undone = await reconcile(month, events);
    expect(undone.code).toBe(1);
    expect(undone.out).toMatch(
      /^ {2}changed again in the web app: remove alan@northwind\.example on organization of organization 102: USER_ADDED at \S+ by Grace Hopper <grace@northwind\.example> \(user 1002\)$/m,
    );
  }, 300_000);
});
