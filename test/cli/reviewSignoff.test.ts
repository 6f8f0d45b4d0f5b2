/**
 * `pulumi-reviewadmin review apply-signoff` (issue 27): a reviewer's sign-off, checked against the
 * packet, becomes the change of the exported access.ts. review.csv is the sign-off template: with
 * its decision and justification columns filled in it is taken as it is, also as a continental
 * Excel saves it (';', a byte-order mark, CRLF); rows without a decision are undecided. A remove
 * gives the line an end date (the sign-off day) and a comment naming the review and the
 * justification; errors name the line of the file. Wrong sign-offs write nothing. What the end
 * dates do under the real engine, in every style, is test/engine/signoffLoop.test.ts.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { runCli } from "./runCli";

let emu: RunningEmulator;
let tmp: string;
let project: string;
let packet: string;
/** The review's "as of" day and today: the emulator runs on real time. */
let day: string;

beforeAll(async () => {
  emu = await startEmulator({ rateLimit: 0 });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-signoff-"));
  const keyFile = path.join(tmp, "key");
  fs.writeFileSync(keyFile, emu.keys.orgAdmin!);
  const common = ["--base-url", emu.url, "--api-key-file", keyFile, "--requests-per-second", "1000", "-q"];
  project = path.join(tmp, "access");
  packet = path.join(tmp, "packet");
  expect(await runCli(["export", ...common, "--out", project, "--project", "signoff"])).toMatchObject({ code: 0 });
  expect(await runCli(["review", ...common, "--out", packet])).toMatchObject({ code: 0 });
  day = JSON.parse(fs.readFileSync(path.join(packet, "review.json"), "utf8")).asOf.slice(0, 10);
});
afterAll(async () => {
  await emu?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const accessTs = () => fs.readFileSync(path.join(project, "access.ts"), "utf8");
const template = () => fs.readFileSync(path.join(packet, "review.csv"), "utf8");

function signoff(name: string, text: string): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, text);
  return file;
}

/** A copy of the exported access.ts to apply to, so each test starts from the export. */
function accessCopy(): string {
  const file = path.join(fs.mkdtempSync(path.join(tmp, "copy-")), "access.ts");
  fs.writeFileSync(file, accessTs());
  return file;
}

const apply = (file: string, ...more: string[]) =>
  runCli(["review", "apply-signoff", "--signoff", file, "--packet", packet, "--access", path.join(project, "access.ts"), ...more]);
const applyTo = (access: string, file: string, ...more: string[]) =>
  runCli(["review", "apply-signoff", "--signoff", file, "--packet", packet, "--access", access, ...more]);

/** The lines of `after` that differ from `before` (the files have the same number of lines). */
const changedLines = (before: string, after: string) => {
  const b = before.split("\n");
  return after.split("\n").filter((l, i) => l !== b[i]);
};

/**
 * review.csv as a reviewer leaves it: `edits` by person and scope, each setting the decision, the
 * justification and (for a change) the permissions cell; the other rows undecided.
 */
function filledIn(
  edits: { person: string; scope: string; decision: string; why?: string; permissions?: string; reviewer?: string; on?: string }[],
): string {
  const [header, ...rows] = parse(template(), { relax_column_count: true }) as string[][];
  const col = (name: string) => header!.indexOf(name);
  for (const e of edits) {
    const row = rows.find((r) => r[col("person")] === e.person && r[col("scope")] === e.scope);
    expect(row, `${e.person} on ${e.scope}`).toBeDefined();
    row![col("decision")] = e.decision;
    row![col("justification")] = e.why ?? "";
    if (e.permissions !== undefined) row![col("permissions")] = e.permissions;
    if (e.reviewer !== undefined) row![col("reviewer")] = e.reviewer;
    if (e.on !== undefined) row![col("reviewed_on")] = e.on;
  }
  return toCsv([header!, ...rows], ",");
}

/** Rows as a spreadsheet writes them: cells quoted when they hold the delimiter, a quote or a line break; CRLF. */
function toCsv(rows: string[][], delimiter: string): string {
  const cell = (c: string) => (c.includes(delimiter) || /["\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c);
  return rows.map((r) => r.map(cell).join(delimiter)).join("\r\n") + "\r\n";
}

const DECISIONS = [
  { person: "alan@northwind.example", scope: "organization", decision: "remove", why: "left the firm" },
  {
    person: "margaret@northwind.example",
    scope: "database 2001",
    decision: "change",
    why: "holds the matter",
    permissions: "DB_UPLOAD DB_LEGAL_HOLD",
  },
  { person: "ada@northwind.example", scope: "organization", decision: "keep" },
];

describe("review apply-signoff: review.csv is the sign-off", () => {
  it("filled in as it is, it round-trips: a removed line gets the sign-off day as its end date, a changed one its permissions, with the review and the justification", async () => {
    const copy = accessCopy();
    const r = await applyTo(copy, signoff("review-signed.csv", filledIn(DECISIONS)));
    expect(r, r.err).toMatchObject({ code: 0 });
    const rows = template().split("\r\n").filter(Boolean).length - 1;
    expect(r.out).toContain(`Applied 3 decisions of ${path.join(tmp, "review-signed.csv")} (the review as of ${day}, signed off ${day})`);
    expect(r.out).toContain(`1 removed, 1 changed, 1 kept; ${rows - 3} undecided.`);
    expect(r.out).toContain(`  remove alan@northwind.example on organization of organization 102: expiresOn ${day}`);
    expect(r.out).toContain(
      '  change margaret@northwind.example on database 2001 of organization 102: ["DB_UPLOAD"] -> ["DB_LEGAL_HOLD", "DB_UPLOAD"]',
    );
    // Undecided rows are listed with their line, not refused.
    expect(r.out).toMatch(/ {2}undecided barbara@northwind\.example on organization \(\S+review-signed\.csv line \d+\)/);
    expect(r.out).toContain(`The first pulumi up on or after ${day} takes the removed access away`);
    expect(changedLines(accessTs(), fs.readFileSync(copy, "utf8"))).toEqual([
      `      { email: "alan@northwind.example", firstName: "Alan", lastName: "Turing", permissions: [], identifiers: [{ abbreviation: "AT", label: "Alan Turing" }], expiresOn: "${day}" }, // removed by the access review of ${day}: left the firm`,
      `          1007: ["DB_LEGAL_HOLD", "DB_UPLOAD"], // Margaret Hamilton <margaret@northwind.example>; changed by the access review of ${day} (was DB_UPLOAD): holds the matter`,
    ]);
  });

  it("saved by a continental Excel (';', a byte-order mark, CRLF), it gives the same change", async () => {
    const plain = accessCopy();
    expect((await applyTo(plain, signoff("plain.csv", filledIn(DECISIONS)))).code).toBe(0);
    const rows = parse(filledIn(DECISIONS)) as string[][];
    const excel = "\uFEFF" + toCsv(rows, ";");
    expect(excel.split("\r\n")[0]).toBe(
      "\uFEFForganization_id;organization;person;user_id;name;scope;database;status;permissions;identifiers;expires;last_activity;flags;risk;declared_by;ends_on;permissions_not_in_code;decision;justification;reviewer;reviewed_on",
    );
    const continental = accessCopy();
    const r = await applyTo(continental, signoff("excel.csv", excel));
    expect(r, r.err).toMatchObject({ code: 0 });
    expect(r.out).toContain("1 removed, 1 changed, 1 kept;");
    expect(fs.readFileSync(continental, "utf8")).toBe(fs.readFileSync(plain, "utf8"));
  });

  it("applied twice, changes nothing more; a remove of an expired invitation ends it too", async () => {
    const copy = accessCopy();
    const file = signoff("twice.csv", filledIn(DECISIONS.filter((d) => d.decision !== "change")));
    expect((await applyTo(copy, file)).code).toBe(0);
    const once = fs.readFileSync(copy, "utf8");
    expect((await applyTo(copy, file)).code).toBe(0);
    expect(fs.readFileSync(copy, "utf8")).toBe(once);

    const invitation = signoff(
      "invitation.csv",
      filledIn([{ person: "late.joiner@northwind.example", scope: "organization", decision: "remove", why: "never joined" }]),
    );
    expect((await applyTo(copy, invitation)).code).toBe(0);
    expect(changedLines(once, fs.readFileSync(copy, "utf8"))).toEqual([
      `      { email: "late.joiner@northwind.example", firstName: "Late", lastName: "Joiner", permissions: ["LEGAL_HOLD_ADMIN"], expiresOn: "${day}" }, // removed by the access review of ${day}: never joined`,
    ]);
  });

  it("--on sets the sign-off day (earlier than today), never a later one", async () => {
    const copy = accessCopy();
    const file = signoff("on.csv", filledIn(DECISIONS.slice(0, 1)));
    const r = await applyTo(copy, file, "--on", "2026-01-05");
    expect(r, r.err).toMatchObject({ code: 0 });
    expect(r.out).toContain("signed off 2026-01-05");
    expect(fs.readFileSync(copy, "utf8")).toContain(`expiresOn: "2026-01-05" }, // removed by the access review of ${day}: left the firm`);
    const later = await applyTo(copy, file, "--on", "2999-01-01");
    expect(later.code).toBe(2);
    expect(later.err).toContain("--on must not be after today");
    const bad = await applyTo(copy, file, "--on", "2026-02-30");
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("--on must be a calendar day written YYYY-MM-DD (UTC), got '2026-02-30'");
  });
});

describe("review apply-signoff: who signed off, and the firm's rule on justifications", () => {
  it("records the reviewer and the day in each note: from review.csv's columns, else --reviewer and the sign-off day", async () => {
    const copy = accessCopy();
    const file = signoff(
      "reviewer.csv",
      filledIn([{ ...DECISIONS[0]!, reviewer: "Grace Hopper <grace@northwind.example>", on: "2026-11-02" }, { ...DECISIONS[1]! }]),
    );
    const r = await applyTo(copy, file, "--reviewer", "Ada Lovelace <ada@northwind.example>");
    expect(r, r.err).toMatchObject({ code: 0 });
    const [alan, margaret] = changedLines(accessTs(), fs.readFileSync(copy, "utf8"));
    expect(alan).toContain(
      `// removed by the access review of ${day}, signed off by Grace Hopper <grace@northwind.example> on 2026-11-02: left the firm`,
    );
    expect(margaret).toContain(
      `changed by the access review of ${day} (was DB_UPLOAD), signed off by Ada Lovelace <ada@northwind.example> on ${day}: holds the matter`,
    );
  });

  it("--require-justification refuses a decision without one, naming the row and the person, and writes nothing", async () => {
    const copy = accessCopy();
    const file = signoff("unjustified.csv", filledIn(DECISIONS));
    const r = await applyTo(copy, file, "--require-justification");
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /unjustified\.csv line \d+: --require-justification: the keep decision for ada@northwind\.example on organization has no justification/,
    );
    expect(fs.readFileSync(copy, "utf8")).toBe(accessTs());
    const bad = await applyTo(copy, signoff("bad-day.csv", filledIn([{ ...DECISIONS[0]!, on: "2nd Nov" }])));
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("reviewed_on must be a calendar day written YYYY-MM-DD, got '2nd Nov'");
  });
});

describe("review apply-signoff: refusals name the line, and write nothing", () => {
  it.each([
    [
      "unknown.csv",
      "email,scope,decision\nnobody@northwind.example,organization,remove\n",
      "unknown.csv line 2: nobody@northwind.example is not in the packet",
    ],
    [
      "decision.csv",
      // A justification over two lines and an empty line before the bad row: the line is the file's.
      'email,scope,decision,justification\r\nada@northwind.example,organization,keep,"two\r\nlines"\r\n\r\n\r\n\r\nalan@northwind.example,organization,delete,\r\n',
      "decision.csv line 7: decision must be keep, remove or change, got 'delete'",
    ],
    ["quote.csv", 'email,scope,decision\nalan@northwind.example,organization,"remove\n', "quote.csv line 2: not a well-formed CSV"],
    [
      "perm.csv",
      "email,scope,decision,permissions\nmargaret@northwind.example,2001,change,ORG_ADMIN\n",
      "perm.csv line 2: permissions must be of DB_ADMIN, DB_UPLOAD, DB_DELETE, DB_LEGAL_HOLD on database 2001",
    ],
    [
      "edited.csv",
      "email;scope;decision;permissions\nmargaret@northwind.example;2001;remove;DB_ADMIN\n",
      'edited.csv line 2: permissions ["DB_ADMIN"] differ from the packet\'s ["DB_UPLOAD"] on database 2001: write decision change to change them',
    ],
    [
      "scope.csv",
      "email,scope,decision\nalan@northwind.example,2001,remove\n",
      "scope must be one where alan@northwind.example has access in the packet (organization)",
    ],
    [
      "org.csv",
      "email,scope,decision,organization\nalan@northwind.example,organization,remove,Southwind\n",
      "org.csv line 2: organization must be one of the packet's (102 Northwind Legal), got 'Southwind'",
    ],
    [
      "twice.json",
      JSON.stringify([
        { email: "alan@northwind.example", scope: "organization", decision: "remove" },
        { email: "alan@northwind.example", scope: "organization", decision: "keep" },
      ]),
      "twice.json decision 2: a second decision for alan@northwind.example",
    ],
    ["header.csv", "who;what\nx;y\n", "header.csv line 1: needs a header row with email (or person), scope and decision"],
  ])("%s", async (name, text, message) => {
    const before = accessTs();
    const r = await apply(signoff(name, text));
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
    expect(r.err).toContain("(see pulumi-reviewadmin review apply-signoff --help)");
    expect(accessTs()).toBe(before);
  });

  it("a header it cannot read says which delimiter it read it with", async () => {
    const r = await apply(signoff("delimiter.csv", "who;what\nx;y\n"));
    expect(r.err).toContain("'email' is missing (read with ';' as the delimiter: 'who', 'what')");
  });

  it("refuses an access file that disagrees with the packet, or one an older export wrote (no end dates)", async () => {
    const other = path.join(tmp, "other-access.ts");
    fs.writeFileSync(other, accessTs().replace(/(\{ email: "ken@northwind\.example"[^\n]*permissions: )\[[^\]]*\]/, '$1["ORG_ADMIN"]'));
    const twoRemovals = signoff(
      "two.csv",
      "email,scope,decision\r\nalan@northwind.example,organization,remove\r\nken@northwind.example,organization,remove\r\n",
    );
    const r = await applyTo(other, twoRemovals);
    expect(r.code).toBe(2);
    expect(r.err).toContain('the access file gives ken@northwind.example ["ORG_ADMIN"] on organization, the packet ["AI_ADMIN"]');

    const older = path.join(tmp, "older-access.ts");
    fs.writeFileSync(
      older,
      accessTs()
        .replace(/export type Dates = [^\n]*\n/, "")
        .replace(/ extends Dates/g, ""),
    );
    const o = await applyTo(older, twoRemovals);
    expect(o.code).toBe(2);
    expect(o.err).toContain(
      "was written by an older pulumi-reviewadmin export, whose access.ts cannot give a line an end date: export again",
    );
  });

  it("scope all ends every line of a person's access (membership and grants)", async () => {
    const before = accessTs();
    const r = await apply(signoff("all.csv", "email,scope,decision\nmargaret@northwind.example,all,remove\n"), "--check");
    expect(r, r.err).toMatchObject({ code: 0 });
    expect(r.out).toContain("2 removed, 0 changed, 0 kept; 0 undecided");
    expect(r.out).toContain(`remove margaret@northwind.example on organization of organization 102: expiresOn ${day}`);
    expect(r.out).toContain(`remove margaret@northwind.example on database 2001 of organization 102: expiresOn ${day}`);
    expect(accessTs()).toBe(before);
    const change = await apply(
      signoff("allchange.csv", "email,scope,decision,permissions\nmargaret@northwind.example,all,change,DB_UPLOAD\n"),
    );
    expect(change.code).toBe(2);
    expect(change.err).toContain("scope all takes keep or remove");
  });

  it("--json: what it changed, as counts and lines; with --check what it would change, nothing written", async () => {
    const copy = accessCopy();
    const file = signoff("json.csv", filledIn(DECISIONS));
    const rows = template().split("\r\n").filter(Boolean).length - 1;
    const line = (email: string, scope: string, permissions: string[]) => ({ organization: 102, email, scope, permissions });
    const expected = (check: boolean) => ({
      signoff: file,
      access: copy,
      review: day,
      on: day,
      check,
      written: !check,
      // Applied, the sign-off is kept in the packet and recorded in its manifest.
      recorded: check
        ? null
        : expect.stringMatching(new RegExp(`^${packet.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/signoff-[0-9a-f]{12}\\.csv$`)),
      counts: { decisions: 3, removed: 1, changed: 1, kept: 1, undecided: rows - 3 },
      removed: [{ ...line("alan@northwind.example", "organization", expect.any(Array)), expiresOn: day }],
      changed: [{ ...line("margaret@northwind.example", "database 2001", ["DB_UPLOAD"]), to: ["DB_LEGAL_HOLD", "DB_UPLOAD"] }],
      kept: [line("ada@northwind.example", "organization", expect.any(Array))],
      undecided: expect.arrayContaining([
        { email: "barbara@northwind.example", scope: "organization", where: expect.stringMatching(/json\.csv line \d+$/) },
      ]),
    });
    const checked = await applyTo(copy, file, "--check", "--json");
    expect(checked, checked.err).toMatchObject({ code: 0, err: "" });
    expect(JSON.parse(checked.out)).toEqual(expected(true));
    expect(fs.readFileSync(copy, "utf8")).toBe(accessTs());
    const applied = await applyTo(copy, file, "--json");
    expect(applied, applied.err).toMatchObject({ code: 0, err: "" });
    const summary = JSON.parse(applied.out);
    expect(summary).toEqual(expected(false));
    expect(summary.undecided).toHaveLength(rows - 3);
    expect(fs.readFileSync(copy, "utf8")).not.toBe(accessTs());
  });

  it("--check prints the change and writes nothing; --help says how removal works", async () => {
    const before = accessTs();
    const r = await apply(signoff("check.csv", filledIn(DECISIONS)), "--check");
    expect(r).toMatchObject({ code: 0 });
    expect(r.out).toContain("Would apply 3 decisions");
    expect(accessTs()).toBe(before);
    const help = await runCli(["review", "apply-signoff", "--help"]);
    expect(help.out).toContain("Usage: pulumi-reviewadmin review apply-signoff [options]");
    expect(help.out).toContain("--signoff FILE");
    expect(help.out).toContain("--on DAY");
    expect(help.out).toContain('a removed line gets an end date, expiresOn: "<the sign-off');
  });
});
