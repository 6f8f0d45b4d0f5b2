/**
 * `pulumi-reviewadmin review` against the emulator (issue 27): the packet in its four formats,
 * the requests it took against the list bound (and no write), two runs byte-identical, changes
 * made through the web-app routes showing in "since the last review" with who made them (and,
 * for a parent organization key, with the details hidden), a scale world of 4,000 members, and
 * bad input refused with exit 2 before anything is read.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEEDED, startEmulator, type RunningEmulator } from "../../emulator";
import { writesIn } from "../../bench/exportedProject";
import { control } from "../support/emulatorHttp";
import { packetAtT0 } from "./reviewEmulator";
import { renderPacket } from "../../cli/review/packetFiles";
import { csvLine } from "../../provider/data/spreadsheetSafe";
import { runCli } from "./runCli";

const U = SEEDED.users;
const DAY = 86_400_000;
// A clock that stands still unless advanced, so "as of" is the emulator's now exactly.
const T0 = Date.parse("2026-11-20T12:00:00.000Z");
let emu: RunningEmulator;
let tmp: string;

beforeAll(async () => {
  emu = await startEmulator({ rateLimit: 0, clock: () => T0 });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-review-"));
});
afterAll(async () => {
  await emu?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

let dirs = 0;
const newDir = (label: string) => path.join(tmp, `${label}-${++dirs}`);

function keyFile(name: string): string {
  const file = path.join(tmp, `key-${name}-${++dirs}`);
  fs.writeFileSync(file, emu.keys[name]!);
  return file;
}

/** Runs `review` with the named key, as of the emulator's now; returns the result, the folder and the traffic. */
async function review(args: string[], key = "orgAdmin") {
  const out = newDir("review");
  emu.traffic.log.reset();
  const asOf = new Date(emu.store.clock.now()).toISOString();
  const r = await runCli([
    "review",
    "--base-url",
    emu.url,
    "--api-key-file",
    keyFile(key),
    "--requests-per-second",
    "1000",
    "--out",
    out,
    "--as-of",
    asOf,
    "--json",
    "-q",
    ...args,
  ]);
  const counters = emu.traffic.log.counters;
  return {
    r,
    out,
    requests: counters.total,
    writes: writesIn(counters.byOperation),
    summary: r.code === 0 ? JSON.parse(r.out) : undefined,
  };
}

const read = (dir: string, f: string) => fs.readFileSync(path.join(dir, f), "utf8");
const packetOf = (dir: string) => JSON.parse(read(dir, "review.json"));
const person = (packet: any, orgId: number, key: string) =>
  packet.organizations.find((o: any) => o.id === orgId).people.find((p: any) => p.key === key);

async function web(method: string, p: string, body?: unknown) {
  const res = await control(emu.url, method, p, body);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
}

describe("pulumi-reviewadmin review on the seeded world", () => {
  let first: Awaited<ReturnType<typeof review>>;

  // Each test starts from the seeded world at T0 and a packet of it, whatever ran before.
  beforeEach(async () => {
    emu.store.clock.offsetMs = 0;
    emu.reset();
    first = await review(["--firm-domain", "northwind.example"]);
  });

  it("writes the packet in four formats and its manifest, within the list bound, with no write", async () => {
    expect(first.r, first.r.err).toMatchObject({ code: 0 });
    expect(fs.readdirSync(first.out).sort()).toEqual(["manifest.json", "review.csv", "review.html", "review.json", "review.md"]);
    expect(first.writes).toEqual({});
    expect(first.requests).toBe(first.summary.requests);
    expect(first.requests).toBeLessThanOrEqual(first.summary.requestBound);
    // The export's 6 (me, members, invitations, databases, the users of 2 databases, one refused) and 1 page of the log.
    expect(first.requests).toBe(7);

    const p = packetOf(first.out);
    expect(p.asOf).toBe(new Date(T0).toISOString());
    expect(p.activityWindow).toEqual({ begin: new Date(T0 - 90 * DAY).toISOString(), end: new Date(T0).toISOString() });
    // Without the stack, the code flags are said not to be judged, and how to judge them.
    expect(p.notJudged.join(" ")).toMatch(/^not-in-code, expiring-soon, walled, wall-breach: .*give --stack NAME or --stack-state FILE/);
    expect(p.stack).toBeUndefined();
    const org = p.organizations.map((o: any) => o.id);
    expect(org).toEqual([SEEDED.org]);
    expect(person(p, SEEDED.org, "ada@northwind.example").flags).toContain("privileged");
    expect(person(p, SEEDED.org, "alan@northwind.example").flags).toContain("no-access");
    expect(person(p, SEEDED.org, "late.joiner@northwind.example")).toMatchObject({
      userId: null,
      flags: ["no-access", "invitation-expired"],
      lines: [{ scope: "organization", status: "invitation-expired" }],
    });
    expect(person(p, SEEDED.org, "margaret@northwind.example").lines.map((l: any) => l.scope)).toEqual(["organization", "database 2001"]);
    // Last activity is the latest event by the person as actor in the window, or null (then stale).
    const events = emu.store.events
      .all()
      .filter((e) => e.organizationId === SEEDED.org && e.timestamp >= T0 - 90 * DAY && e.timestamp <= T0);
    for (const x of packetOf(first.out).organizations[0].people.filter((q: any) => q.userId !== null)) {
      const last = events.filter((e) => e.userId === x.userId).at(-1);
      expect(x.lastActivity).toBe(last ? new Date(last.timestamp).toISOString() : null);
      expect(x.flags.includes("stale")).toBe(!last);
    }

    const csv = read(first.out, "review.csv").split("\r\n");
    expect(csv[0]).toBe(
      "organization_id,organization,person,user_id,name,scope,database,status,permissions,identifiers,expires,last_activity,flags,risk,declared_by,ends_on,permissions_not_in_code,decision,justification,reviewer,reviewed_on",
    );
    // The last two columns are the reviewer's: review.csv is the sign-off template.
    expect(csv).toContain(
      `102,Northwind Legal,margaret@northwind.example,1007,Margaret Hamilton,database 2001,Northwind v. Contoso,granted,DB_UPLOAD,,,${person(p, 102, "margaret@northwind.example").lastActivity ?? ""},${person(
        p,
        102,
        "margaret@northwind.example",
      )
        .flags.filter((f: string) => f !== "privileged")
        .join(" ")},,,,,,,,`,
    );
    // The person is privileged (CLOUD_MANAGEMENT_ADMIN on the organization line); the flag is on that line only.
    expect(person(p, 102, "margaret@northwind.example").flags).toContain("privileged");
    const md = read(first.out, "review.md");
    expect(md).toContain("# Access review as of 2026-11-20 12:00 UTC");
    expect(md).toContain("| late.joiner@northwind.example |");
    expect(md).toContain("Not judged: not-in-code, expiring-soon, walled, wall-breach");
  });

  it("is byte-identical when run again on the same world", async () => {
    const again = await review(["--firm-domain", "northwind.example"]);
    for (const f of ["review.md", "review.html", "review.csv", "review.json"]) expect(read(again.out, f), f).toBe(read(first.out, f));
  });

  it("shows web-app changes since the last review with who made them and when; CSV cells are formula-safe", async () => {
    await control(emu.url, "POST", "/clock", { advanceDays: 1 });
    const when = new Date(T0 + DAY).toISOString();
    await web("POST", `/organizations/${SEEDED.org}/members`, {
      email: "eve@outside.example",
      firstName: '=HYPERLINK("x")',
      lastName: "-1",
      permissions: ["AI_ADMIN"],
      actingUserId: U.legalHoldAdmin,
    });
    await web("DELETE", `/databases/${SEEDED.databases.open}/users/${U.multiOrgMember}`);
    await web("PATCH", `/organizations/${SEEDED.org}/members/${U.member}`, {
      permissions: ["LEGAL_HOLD_ADMIN"],
      actingUserId: U.multiOrgMember,
    });
    await web("POST", "/invitations/expire", { organizationId: SEEDED.org, email: SEEDED.invitations.pending });
    await control(emu.url, "POST", "/clock", { advanceMs: 1000 });

    const second = await review(["--firm-domain", "northwind.example", "--previous", first.out]);
    expect(second.r, second.r.err).toMatchObject({ code: 0 });
    expect(second.summary.organizations[0]).toMatchObject({ gained: 1, lost: 1, changed: 2 });
    const since = packetOf(second.out).organizations[0].since;
    expect(since.previousAsOf).toBe(new Date(T0).toISOString());
    expect(since.gained).toEqual([
      expect.objectContaining({
        key: "eve@outside.example",
        scope: "organization",
        attribution: `changed at ${when} by Frances Allen <frances@northwind.example> (user ${U.legalHoldAdmin}) (USER_ADDED)`,
      }),
    ]);
    expect(since.lost).toEqual([
      expect.objectContaining({
        key: "margaret@northwind.example",
        scope: "database 2001",
        attribution: `changed at ${when} by Ada Lovelace <ada@northwind.example> (user ${U.orgAdmin}) (DATABASE_USER_REMOVED)`,
      }),
    ]);
    expect(since.changed).toEqual([
      expect.objectContaining({
        key: "alan@northwind.example",
        before: expect.objectContaining({ permissions: [] }),
        after: expect.objectContaining({ permissions: ["LEGAL_HOLD_ADMIN"] }),
        attribution: `changed at ${when} by Margaret Hamilton <margaret@northwind.example> (user ${U.multiOrgMember}) (USER_UPDATED)`,
      }),
      // Expiry is time passing: no one to name, and the packet says so.
      expect.objectContaining({
        key: SEEDED.invitations.pending,
        before: expect.objectContaining({ status: "invited" }),
        after: expect.objectContaining({ status: "invitation-expired" }),
        attribution: expect.stringMatching(/^expired at \S+: time passed, no one changed it$/),
      }),
    ]);
    // Added the day before: not stale (she has not had the stale window to act in).
    expect(person(packetOf(second.out), SEEDED.org, "eve@outside.example").flags).toEqual(["privileged", "external"]);
    const md = read(second.out, "review.md");
    expect(md).toContain("- Since the last review (as of 2026-11-20 12:00 UTC): 1 gained, 1 lost, 2 changed.");
    // The actor by name and email, the time to the minute and labelled.
    expect(md).toContain(
      `changed at 2026-11-21 12:00 UTC by Frances Allen <frances@northwind.example> (user ${U.legalHoldAdmin}) (USER_ADDED)`,
    );
    const eve = read(second.out, "review.csv")
      .split("\r\n")
      .find((l) => l.includes("eve@outside.example"))!;
    expect(eve).toContain(`,"'=HYPERLINK(""x"") -1",`);
  });

  it("with a parent organization key, names the time and actor and says the details are hidden", async () => {
    const before = await review([], "parentOrgAdmin");
    expect(before.r, before.r.err).toMatchObject({ code: 0 });
    expect(packetOf(before.out).organizations.map((o: any) => [o.id, o.eventsRedacted])).toEqual([[SEEDED.parentOrg, true]]);
    await control(emu.url, "POST", "/clock", { advanceDays: 1 });
    const when = new Date(emu.store.clock.now()).toISOString();
    await web("PATCH", `/organizations/${SEEDED.parentOrg}/members/${U.parentAdminUser}`, {
      permissions: ["ORG_ADMIN", "AI_ADMIN"],
      actingUserId: U.parentAdminUser,
    });
    await control(emu.url, "POST", "/clock", { advanceMs: 1000 });
    const after = await review(["--previous", before.out], "parentOrgAdmin");
    expect(after.r, after.r.err).toMatchObject({ code: 0 });
    const since = packetOf(after.out).organizations[0].since;
    expect(since.changed).toEqual([
      expect.objectContaining({
        key: "grace@northwind.example",
        attribution: `changed at ${when} by Grace Hopper <grace@northwind.example> (user ${U.parentAdminUser}), details hidden for a parent key`,
      }),
    ]);
  });
});

describe("pulumi-reviewadmin review on a scale world (4,000 members)", () => {
  beforeAll(() => {
    emu.store.clock.offsetMs = 0;
    emu.reset(1, { members: 4000 });
  });

  it("reads within the list bound, writes every person, and two runs are byte-identical", async () => {
    const a = await review([]);
    expect(a.r, a.r.err).toMatchObject({ code: 0 });
    const members = emu.store.members.of(SEEDED.org).length;
    expect(members).toBeGreaterThanOrEqual(4000);
    const databases = emu.store.databases.of(SEEDED.org);
    const events = emu.store.events.all().filter((e) => e.organizationId === SEEDED.org && e.timestamp >= T0 - 90 * DAY).length;
    // The export's bound, plus the activity log's pages.
    const bound =
      Math.ceil(members / 200) +
      databases.reduce((n, d) => n + Math.ceil(Math.max(1, emu.store.databases.usersOf(d.id).length) / 200), 0) +
      5 +
      Math.ceil(Math.max(1, events) / 10_000);
    expect(a.requests).toBeLessThanOrEqual(bound);
    expect(a.summary.requestBound).toBe(bound);
    expect(a.writes).toEqual({});
    expect(packetOf(a.out).organizations[0].people.length).toBe(members + 2);
    expect(read(a.out, "review.csv").split("\r\n").length).toBeGreaterThan(members);
    const b = await review([]);
    for (const f of ["review.md", "review.html", "review.csv", "review.json"]) expect(read(b.out, f) === read(a.out, f), f).toBe(true);
  }, 60_000);
});

describe("review.csv cells", () => {
  it("uses the reports' one rule: a formula gets a leading ', a plain number stays, what needs it is quoted", () => {
    expect(["=1+1", "+1", "-1", "-2.5", "-1+1", "-3e5", "@SUM(A1)", "\tx", "plain", 'a "b", c'].map((c) => csvLine([c]))).toEqual([
      "'=1+1",
      "+1",
      "-1",
      "-2.5",
      "'-1+1",
      "'-3e5",
      "'@SUM(A1)",
      "'\tx",
      "plain",
      '"a ""b"", c"',
    ]);
  });

  it("review.csv and review.md cells follow the reports' rules (those of the access matrix's toCsv and toMarkdown)", () => {
    const packet = packetAtT0([
      {
        id: 1,
        name: "-1+cmd|' /C calc'!A0",
        eventsRedacted: false,
        eventsRead: 0,
        databases: [],
        databasesNotReadable: [],
        people: [
          {
            key: "x@y.z",
            userId: 7,
            name: "-3",
            lines: [{ scope: "organization", status: "member", permissions: [] }],
            lastActivity: null,
            flags: [],
          },
        ],
      },
    ]);
    const files = renderPacket(packet);
    expect(files["review.csv"].split("\r\n")[1]).toBe(`1,'-1+cmd|' /C calc'!A0,x@y.z,7,-3,organization,,member,,,,,,,,,,,,,`);
    expect(files["review.md"]).toContain("## -1+cmd\\|' /C calc'!A0 (organization 1)");
  });
});

/** A resource of this package as `pulumi stack export` writes it (the review reads type, urn and outputs). */
const resource = (kind: string, name: string, outputs: Record<string, unknown>) => ({
  urn: `urn:pulumi:prod::access::pulumi-nodejs:dynamic:Resource$pulumi-nodejs:dynamic/reviewadmin:${kind}::${name}`,
  type: `pulumi-nodejs:dynamic/reviewadmin:${kind}`,
  outputs,
});
/** A secret output exported without --show-secrets: its value cannot be read. */
const SECRET = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", ciphertext: "v1:abc" };
const live = (userId: number, permissions: unknown) => ({
  status: "active",
  userId,
  firstName: null,
  lastName: null,
  permissions,
  userIdentifiers: [],
});

describe("pulumi-reviewadmin review: what the code declares, judged per permission", () => {
  beforeEach(() => {
    emu.store.clock.offsetMs = 0;
    emu.reset();
  });

  it("names the permissions held beyond what the stack declares for a line, in json, csv and md", async () => {
    // The stack as its last up left it: Alan declared with no permissions, Ada with ORG_ADMIN, Frances's
    // set secret (not readable), Ken by an OrgMember that does not manage permissions, Margaret's grant.
    const state = path.join(tmp, `state-${++dirs}.json`);
    const members = { "alan@northwind.example": live(U.member, []), "ada@northwind.example": live(U.orgAdmin, ["ORG_ADMIN"]) };
    fs.writeFileSync(
      state,
      JSON.stringify({
        version: 3,
        deployment: {
          resources: [
            resource("OrganizationMembers", "org", {
              organizationId: SEEDED.org,
              mode: "additive",
              members: { ...members, "frances@northwind.example": live(U.legalHoldAdmin, SECRET) },
              managed: Object.fromEntries([...Object.keys(members), "frances@northwind.example"].map((e) => [e, ["permissions"]])),
              unmanaged: [],
            }),
            resource("OrgMember", "ken", {
              organizationId: SEEDED.org,
              email: "ken@northwind.example",
              status: "active",
              userId: U.aiAdmin,
              permissions: ["AI_ADMIN"],
              managed: [],
            }),
            resource("DatabaseUserPermissions", "margaret", {
              databaseId: SEEDED.databases.open,
              userId: U.multiOrgMember,
              permissions: ["DB_UPLOAD"],
            }),
          ],
        },
      }),
    );
    // In the web app, behind the code's back: Alan made ORG_ADMIN, Margaret given DB_ADMIN.
    await web("PATCH", `/organizations/${SEEDED.org}/members/${U.member}`, { permissions: ["ORG_ADMIN"] });
    await web("PUT", `/databases/${SEEDED.databases.open}/users/${U.multiOrgMember}`, { permissions: ["DB_ADMIN", "DB_UPLOAD"] });

    const judged = await review(["--stack-state", state]);
    expect(judged.r, judged.r.err).toMatchObject({ code: 0 });
    const p = packetOf(judged.out);
    const lines = (key: string) => person(p, SEEDED.org, key).inCode.lines;
    const flags = (key: string) => person(p, SEEDED.org, key).flags;
    const org = 'OrganizationMembers "org"';
    expect(lines("alan@northwind.example")).toEqual([{ scope: "organization", declaredBy: [org], notInCode: ["ORG_ADMIN"] }]);
    expect(flags("alan@northwind.example")).toEqual(expect.arrayContaining(["privileged", "not-in-code"]));
    expect(lines("ada@northwind.example")).toEqual([{ scope: "organization", declaredBy: [org] }]);
    expect(flags("ada@northwind.example")).not.toContain("not-in-code");
    // Permissions the state does not show cannot be judged: declared, nothing named.
    expect(lines("frances@northwind.example")).toEqual([{ scope: "organization", declaredBy: [org] }]);
    expect(flags("frances@northwind.example")).not.toContain("not-in-code");
    // A resource that does not manage permissions declares none of them.
    expect(lines("ken@northwind.example")).toEqual([{ scope: "organization", declaredBy: ['OrgMember "ken"'], notInCode: ["AI_ADMIN"] }]);
    expect(lines("margaret@northwind.example")).toEqual([
      { scope: "organization", declaredBy: [], notInCode: ["CLOUD_MANAGEMENT_ADMIN"] },
      { scope: `database ${SEEDED.databases.open}`, declaredBy: ['DatabaseUserPermissions "margaret"'], notInCode: ["DB_ADMIN"] },
    ]);

    const csv = read(judged.out, "review.csv").split("\r\n");
    expect(csv.find((l) => l.includes(",alan@northwind.example,"))).toMatch(/,"OrganizationMembers ""org""",,ORG_ADMIN,,,,$/);
    expect(csv.find((l) => l.includes(",margaret@northwind.example,") && l.includes(",database 2001,"))).toMatch(
      /,"DatabaseUserPermissions ""margaret""",,DB_ADMIN,,,,$/,
    );
    const md = read(judged.out, "review.md");
    expect(md).toContain(`organization: declared by the organization's roster "org" (OrganizationMembers); ORG_ADMIN not in code`);
    expect(md).toContain('database 2001: declared by a database grant "margaret" (DatabaseUserPermissions); DB_ADMIN not in code');
    expect(md).toContain("or permissions beyond those the code declares for the line");
  });
});

describe("pulumi-reviewadmin review: stale limits per privilege", () => {
  beforeEach(() => {
    emu.store.clock.offsetMs = 0;
    emu.reset();
  });

  it("a privilege's own limit judges its holders (the strictest of theirs); others keep the default", async () => {
    // Two quiet days after T0, so Ada's last activity is days old.
    emu.store.clock.offsetMs = 2 * DAY;
    const now = emu.store.clock.now();
    const ada = U.orgAdmin;
    const last = Math.max(
      ...emu.store.events
        .all()
        .filter((e) => e.organizationId === SEEDED.org && e.userId === ada && e.timestamp <= now)
        .map((e) => e.timestamp),
    );
    const daysAgo = (now - last) / DAY;
    expect(daysAgo).toBeGreaterThan(1);
    const base = packetOf((await review([])).out);
    expect(person(base, SEEDED.org, "ada@northwind.example").flags).not.toContain("stale");

    const strict = await review(["--stale-days", `ORG_ADMIN=${Math.floor(daysAgo)}`]);
    expect(strict.r, strict.r.err).toMatchObject({ code: 0 });
    const p = packetOf(strict.out);
    expect(p.staleDays).toBe(90);
    expect(p.staleDaysByPrivilege).toEqual({ ORG_ADMIN: Math.floor(daysAgo) });
    expect(person(p, SEEDED.org, "ada@northwind.example")).toMatchObject({ lastActivity: new Date(last).toISOString() });
    expect(person(p, SEEDED.org, "ada@northwind.example").flags).toContain("stale");
    // Nobody else holds ORG_ADMIN in 102: everyone else's flags are the default's.
    const flagsBy = (x: any) =>
      Object.fromEntries(x.organizations.flatMap((o: any) => o.people.map((q: any) => [`${o.id} ${q.key}`, q.flags])));
    const { [`${SEEDED.org} ada@northwind.example`]: _a, ...rest } = flagsBy(p);
    const { [`${SEEDED.org} ada@northwind.example`]: _b, ...baseRest } = flagsBy(base);
    expect(rest).toEqual(baseRest);
    expect(read(strict.out, "review.md")).toContain(
      `(90 days; ORG_ADMIN ${Math.floor(daysAgo)} days; the strictest of the privileges they hold)`,
    );

    const lenient = packetOf((await review(["--stale-days", `ORG_ADMIN=${Math.ceil(daysAgo)}`])).out);
    expect(person(lenient, SEEDED.org, "ada@northwind.example").flags).not.toContain("stale");
  });

  it("without --as-of, the review is as of the service's clock, not this machine's; its progress is worded for a review", async () => {
    emu.store.clock.offsetMs = 30 * DAY;
    const out = newDir("service-clock");
    const r = await runCli([
      "review",
      "--base-url",
      emu.url,
      "--api-key-file",
      keyFile("orgAdmin"),
      "--requests-per-second",
      "1000",
      "--out",
      out,
    ]);
    expect(r, r.err).toMatchObject({ code: 0 });
    // Progress speaks of the review, not of an export (the reading is the export's).
    expect(r.err).toContain(
      "review: organization 102 (Northwind Legal): database 2002 (Internal Investigation) not readable with this key: org admin access is off on it and the key holds no DB_ADMIN on it (the key of one of its database admins can read it)",
    );
    expect(r.err).not.toMatch(/export/i);
    // The Date header (whole seconds), carried forward on this machine's clock while the review reads.
    expect(Math.abs(Date.parse(packetOf(out).asOf) - (T0 + 30 * DAY))).toBeLessThan(5_000);
  });
});

describe("pulumi-reviewadmin review: bad input", () => {
  it.each([
    [["--stale-days", "0"], "--stale-days must be a positive integer"],
    [["--firm-domain", "not a domain"], "--firm-domain must be a domain"],
    [["--as-of", "yesterday"], "--as-of must be an ISO 8601 time"],
    [["--previous", "/nonexistent/review"], "--previous must name a review folder"],
    [["--stale-days", "ADMIN=30"], "--stale-days must be N or PRIVILEGE=N with PRIVILEGE one of ORG_ADMIN, CLOUD_MANAGEMENT_ADMIN"],
    [["--stale-days", "DB_ADMIN=soon"], "--stale-days must be a positive integer, got 'soon'"],
    [["--stack-state", "/nonexistent/state.json"], "--stack-state: cannot read /nonexistent/state.json"],
    [["--stack", "dev", "--stack-state", "state.json"], "give --stack or --stack-state, not both"],
    [["--expiring-days", "0"], "--expiring-days must be a positive integer"],
  ])("%j: exit 2, the option and the rule on stderr, no request", async (args, message) => {
    emu.traffic.log.reset();
    const r = await runCli(["review", "--base-url", emu.url, "--api-key-file", keyFile("orgAdmin"), "--out", newDir("bad"), ...args]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
    expect(r.err).toContain("(see pulumi-reviewadmin review --help)");
    expect(emu.traffic.log.counters.total).toBe(0);
  });

  it("refuses a previous packet that is not earlier", async () => {
    const dir = newDir("prev");
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, "review.json"),
      JSON.stringify({ format: "pulumi-reviewadmin review 1", asOf: "2099-01-01T00:00:00.000Z", organizations: [] }),
    );
    const r = await runCli([
      "review",
      "--base-url",
      emu.url,
      "--api-key-file",
      keyFile("orgAdmin"),
      "--previous",
      dir,
      "--as-of",
      "2026-01-01T00:00:00Z",
    ]);
    expect(r).toMatchObject({ code: 2 });
    expect(r.err).toContain("--previous must be an earlier review");
  });

  it("has a --help that names its options, and a did-you-mean", async () => {
    const help = await runCli(["review", "--help"]);
    expect(help.code).toBe(0);
    for (const o of ["--out", "--firm-domain", "--stale-days", "--as-of", "--previous", "--org", "apply-signoff", "review.html"])
      expect(help.out).toContain(o);
    const near = await runCli(["reviw"]);
    expect(near).toMatchObject({ code: 2 });
    expect(near.err).toContain("did you mean 'review'?");
  });
});
