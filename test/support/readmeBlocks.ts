/**
 * Every fenced block of the README and of the other user docs whose blocks are run (RUN_DOCS in
 * test/support/readme.ts), and how test/engine/readme.test.ts runs it or why it does not
 * (test/cli/readme.test.ts checks that each block is here once): the shell blocks' STORIES, the
 * PROGRAMS, the data-source SCRIPT, and NOT_RUN with the reasons. Each is named by a line of its
 * block (trimmed, or a shell line's command part), whichever page holds it.
 *
 * Each program is the `index.ts` of a consumer project on the seeded emulator: up, up again with
 * nothing changed, then up after one small change the test makes (a person or a permission
 * added). A block that leaves out what a program needs around it (the import, a file it names)
 * gets it here, said in `needs`.
 *
 * Blocks of the same `stack` run together, as one program of one module per block
 * (`<page>-<line>.ts`, so an error names the page and line): docs/resources.md's one-resource
 * examples, which touch different people, grants and directories, cost three engine runs in all
 * instead of three each. Blocks that would meet (two rosters of one organization, two syncs of one
 * directory) have a stack of their own.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect } from "vitest";
import { SEEDED, type RunningEmulator } from "../../emulator";
import { ENTRA_EXPORT } from "./custodianExports";
import { writePatternedFile } from "./files";
import { docText, repoRoot } from "./readme";

/** The line a fragment of docs/resources.md leaves out: every block there uses `reviewadmin`. */
export const IMPORT = 'import * as reviewadmin from "pulumi-reviewadmin";\n';

const ORG = SEEDED.org;
const DB = SEEDED.databases.open;
const U = SEEDED.users;

/** One program of the user docs and how the test runs it. */
export interface Program {
  /** A line of the block (trimmed) that tells it from every other block. */
  block: string;
  /** The stack it runs on: blocks of one stack run together ("dev" is the one the own-project steps make). */
  stack: string;
  /** What the block leaves out that a program needs (its import, a file it names): said, and given. */
  needs?: { why: string; prelude?: string; files?: (dir: string) => void };
  /**
   * The emulator's day while it runs (its clock, which the provider takes "today" from), when the
   * block's dates must stay ahead of it whenever the test runs. Other blocks run on the real clock.
   */
  today?: string;
  /** What the first up made, in the emulator. */
  applied?: (emu: RunningEmulator) => void;
  /** The one change: what it is, the edit of index.ts and/or of a file the block names, and what is then live. */
  change: { what: string; edit?: (code: string) => string; files?: (dir: string) => void; live: (emu: RunningEmulator) => void };
}

const member = (emu: RunningEmulator, org: number, user: number) => emu.store.members.find(org, user);
const orgPermissions = (emu: RunningEmulator, user: number) => [...(member(emu, ORG, user)?.permissions ?? [])].sort();
const dbPermissions = (emu: RunningEmulator, user: number) => [...(emu.store.databases.findUser(DB, user)?.permissions ?? [])].sort();
const custodianEmails = (emu: RunningEmulator) => emu.store.directories.get(SEEDED.directories.org).custodians.map((c) => c.email);

/** Replaces `from` in `code`, or fails saying that the block no longer has it (update the change here). */
export function replaceIn(code: string, from: string, to: string): string {
  if (!code.includes(from))
    throw new Error(`the doc's block no longer contains ${JSON.stringify(from)}: update its change in test/support/readmeBlocks.ts`);
  return code.replace(from, to);
}

/** Appends a line to a CSV file the block names, with the file's own line ending. */
function appendRow(file: string, row: string): void {
  const text = fs.readFileSync(file, "utf8");
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  fs.writeFileSync(file, `${text}${row}${eol}`);
}

export const PROGRAMS: Program[] = [
  {
    block: 'mode: "additive", // adds and updates; never removes anyone',
    stack: "dev",
    change: {
      what: "a person added to the roster",
      edit: (code) =>
        replaceIn(code, `{ permissions: ["ORG_ADMIN"] } },`, `{ permissions: ["ORG_ADMIN"] }, "linus@example.com": { permissions: [] } },`),
      live: (emu) => expect(member(emu, ORG, U.unaffiliated)).toBeDefined(),
    },
  },
  {
    block: 'const ada = new reviewadmin.OrgMember("ada", {',
    stack: "resources",
    applied: (emu) => expect(member(emu, ORG, U.orgAdmin)?.userIdentifiers).toEqual([{ abbreviation: "AL", label: "Ada Lovelace" }]),
    change: {
      what: "a permission added",
      edit: (code) => replaceIn(code, `permissions: ["ORG_ADMIN"],`, `permissions: ["ORG_ADMIN", "AI_ADMIN"],`),
      live: (emu) => expect(orgPermissions(emu, U.orgAdmin)).toEqual(["AI_ADMIN", "ORG_ADMIN"]),
    },
  },
  {
    block:
      'new reviewadmin.OrgMemberPermissions("grace-perms", { organizationId: 102, email: "grace@northwind.example", permissions: ["AI_ADMIN"] });',
    stack: "resources",
    needs: { why: "a fragment: the import of the blocks above", prelude: IMPORT },
    applied: (emu) => expect(orgPermissions(emu, U.parentAdminUser)).toEqual(["AI_ADMIN"]),
    change: {
      what: "a permission added",
      edit: (code) => replaceIn(code, `permissions: ["AI_ADMIN"] }`, `permissions: ["AI_ADMIN", "LEGAL_HOLD_ADMIN"] }`),
      live: (emu) => expect(orgPermissions(emu, U.parentAdminUser)).toEqual(["AI_ADMIN", "LEGAL_HOLD_ADMIN"]),
    },
  },
  {
    block: 'new reviewadmin.DatabaseUserPermissions("alan-nvc", { databaseId: 2001, userId: 1003, permissions: ["DB_UPLOAD"] });',
    stack: "resources",
    needs: { why: "a fragment: the import of the blocks above", prelude: IMPORT },
    applied: (emu) => expect(dbPermissions(emu, U.member)).toEqual(["DB_UPLOAD"]),
    change: {
      what: "a permission added",
      edit: (code) => replaceIn(code, `permissions: ["DB_UPLOAD"] }`, `permissions: ["DB_UPLOAD", "DB_LEGAL_HOLD"] }`),
      live: (emu) => expect(dbPermissions(emu, U.member)).toEqual(["DB_LEGAL_HOLD", "DB_UPLOAD"]),
    },
  },
  {
    block: 'new reviewadmin.CustodianDirectorySync("custodians", { directoryId: 5001, csvPath: "custodians.csv" });',
    stack: "resources",
    needs: {
      why: "a fragment: the import, and the custodians.csv it names (the custodian-sync example's)",
      prelude: IMPORT,
      files: (dir) => fs.copyFileSync(path.join(repoRoot, "examples/custodian-sync/custodians.csv"), path.join(dir, "custodians.csv")),
    },
    applied: (emu) => expect(custodianEmails(emu)).toContain("sam.okafor@northwind.example"),
    change: {
      what: "a person added to custodians.csv",
      files: (dir) =>
        appendRow(path.join(dir, "custodians.csv"), "grace@northwind.example,Grace,Hopper,Legal,Partner,,New York,2015-01-05,"),
      live: (emu) => expect(custodianEmails(emu)).toContain("grace@northwind.example"),
    },
  },
  {
    block: 'new reviewadmin.CustodianDirectorySync("custodians", { directoryId: 5001, csvPath: "entra-users.csv", preset: "entra-id" });',
    stack: "entra",
    needs: {
      why: "a fragment: the import, and the Entra ID download it names (docs/custodians.md's layout)",
      prelude: IMPORT,
      files: (dir) => fs.writeFileSync(path.join(dir, "entra-users.csv"), ENTRA_EXPORT),
    },
    applied: (emu) => expect(custodianEmails(emu)).toContain("alan.turing@northwind.example"),
    change: {
      what: "a person added to the Entra ID download",
      files: (dir) =>
        appendRow(
          path.join(dir, "entra-users.csv"),
          "grace@northwind.example,Grace Hopper,Hopper,grace.hopper@northwind.example,Grace,6f1c0d2e-0000-4000-8000-000000000005,Member,Partner,Legal,True,US,,,,,New York,,,,,,,,Northwind Legal,,True,,northwind.example,2/1/2023 9:00:00 AM",
        ),
      live: (emu) => expect(custodianEmails(emu)).toContain("grace.hopper@northwind.example"),
    },
  },
  {
    block: 'protectedEmails: ["breakglass@northwind.example"],',
    stack: "rosters",
    needs: { why: "a fragment: the import of the blocks above", prelude: IMPORT },
    applied: (emu) => {
      // Authoritative: the live set made equal to the maps.
      expect(emu.store.members.of(ORG).map((m) => m.userId)).toEqual([U.orgAdmin, U.member]);
      expect(emu.store.invitations.of(ORG).map((i) => i.email)).toEqual(["new.hire@northwind.example"]);
      expect(emu.store.databases.usersOf(DB).map((u) => [u.userId, u.permissions])).toEqual([
        [U.member, ["DB_UPLOAD"]],
        [U.databaseAdmin, ["DB_ADMIN"]],
      ]);
    },
    change: {
      what: "a person added to the organization's roster",
      edit: (code) => replaceIn(code, `members: {\n`, `members: {\n    "grace@northwind.example": { permissions: ["AI_ADMIN"] },\n`),
      live: (emu) => expect(orgPermissions(emu, U.parentAdminUser)).toEqual(["AI_ADMIN"]),
    },
  },
  {
    block: 'new reviewadmin.EthicalWall("nvc-wall", {',
    stack: "resources",
    needs: { why: "a fragment: the import of the blocks above", prelude: IMPORT },
    change: {
      what: "a person with a grant on the walled database added to the wall (onBreach: remove)",
      edit: (code) =>
        replaceIn(code, `people: ["ken@northwind.example",`, `people: ["margaret@northwind.example", "ken@northwind.example",`),
      live: (emu) => expect(emu.store.databases.findUser(DB, U.multiOrgMember)).toBeUndefined(),
    },
  },
  {
    block: '"1009": { permissions: ["DB_UPLOAD"], expiresOn: "2026-12-01" }, // outside counsel, for the matter',
    stack: "expiring",
    today: "2026-11-02",
    needs: { why: "a fragment: the import of the blocks above", prelude: IMPORT },
    applied: (emu) => {
      expect(dbPermissions(emu, U.noAccess)).toEqual(["DB_UPLOAD"]);
      expect(emu.store.invitations.find(ORG, "jane@lawfirm.example")).toBeDefined();
    },
    change: {
      what: "a user added to the database's roster",
      edit: (code) => replaceIn(code, `"1004": ["DB_ADMIN"],`, `"1004": ["DB_ADMIN"],\n    "1003": ["DB_UPLOAD"],`),
      live: (emu) => expect(dbPermissions(emu, U.member)).toEqual(["DB_UPLOAD"]),
    },
  },
  {
    block:
      'const ds = new reviewadmin.Dataset("mailboxes", { databaseId: 2001, name: "Mailboxes 2026", deduplication: "NONE", timezone: "Europe/Paris" });',
    stack: "resources",
    needs: {
      why: "a fragment: the import, and the local file data/jdoe.pst it uploads",
      prelude: IMPORT,
      files: (dir) => {
        fs.mkdirSync(path.join(dir, "data"), { recursive: true });
        writePatternedFile(path.join(dir, "data"), "jdoe.pst", 100_000);
      },
    },
    applied: (emu) => {
      const datasets = Object.values(emu.store.uploads.state.datasets);
      expect(datasets.map((d) => d.name)).toEqual(["Mailboxes 2026"]);
      expect(
        Object.values(emu.store.uploads.state.sourceFiles)
          .map((f) => f.filename)
          .sort(),
      ).toEqual(["export.zip", "jdoe.pst"]);
    },
    change: {
      what: "a source file added",
      edit: (code) =>
        `${code}new reviewadmin.SourceFile("more", { databaseId: 2001, datasetId: ds.datasetId, directLink: "https://bucket.example/more.zip" });\n`,
      live: (emu) => expect(Object.values(emu.store.uploads.state.sourceFiles)).toHaveLength(3),
    },
  },
];

/** A shell block's story: the lines not run here, and those run otherwise, by their command part. */
export interface Story {
  /** A line of the block (trimmed, or its command part) that tells it from every other block. */
  block: string;
  /** Lines not run here, with why. */
  notRun?: Record<string, string>;
  /** Lines run otherwise here: what runs instead, and why. */
  instead?: Record<string, { run: string; why: string }>;
}

export const STORIES = {
  ownProject: {
    block: "mkdir my-access && cd my-access",
    instead: {
      "pulumi new typescript --yes": {
        run: 'cp -R "$PULUMI_NEW_TEMPLATE"/. . && pulumi stack init dev',
        why: "pulumi new downloads its template and packages from the network: here the typescript template's files are copied and its stack made",
      },
    },
  },
  onboarding: { block: "read -rs REVIEWADMIN_API_KEY && export REVIEWADMIN_API_KEY" },
  policy: { block: "pulumi preview --policy-pack node_modules/pulumi-reviewadmin/policy --policy-pack-config policy-config.json" },
  configuration: { block: "pulumi config set reviewadmin:requestsPerSecond 25" },
  routes: { block: "npx --no-install pulumi-reviewadmin routes --openapi vendor-openapi.yaml" },
  emulator: { block: "npx --no-install pulumi-reviewadmin emulator --port 8080 --state .emulator.json" },
} satisfies Record<string, Story>;

/** The data-source block of docs/reviews.md: a plain Node script (data sources work in a plain Node script too). */
export const SCRIPT = {
  block: "const matrix = await reviewadmin.getAccessMatrix({ organizationId: 102 });",
  prelude: `import * as fs from "node:fs";\n${IMPORT}`,
  why: "a fragment: the imports of fs and of the package, run as an ES module (top-level await) by Node",
};

const VERSION = (JSON.parse(docText("package.json")) as { version: string }).version;

/** Blocks not run, by a line of each, with the reason. */
export const NOT_RUN: Record<string, string> = {
  [`pulumi plugin install resource reviewadmin ${VERSION} --file pulumi-resource-reviewadmin-v${VERSION}-linux-amd64.tar.gz`]:
    "installs the release's plugin archive, a platform executable `npm run release` builds (minutes); the release's engine test installs that archive with this command and runs a YAML program on it with no Node on the PATH",
  "npm run bench -- --quick":
    "the benchmarks, from a clone: 2 to 45 minutes each; test/engine/readmeCommands.test.ts checks every flag shown against the benchmarks' --help",
  '{ email: "alan@northwind.example", firstName: "Alan", lastName: "Turing", permissions: [], expiresOn: "2026-12-02" }, // removed by the access review of 2026-12-01: left the firm':
    "a line of the exported access.ts as review apply-signoff rewrites it (data, not a program); test/cli/reviewSignoff.test.ts and test/engine/signoffLoop.test.ts check it",
  "pulumi stack export --stack prod > state.json":
    "reads a user's stack named prod; test/engine/olderStates.test.ts runs state show on a real stack's export (piped, --stack-state -), test/cli/stateShow.test.ts on export files, and the enterprise benchmark on its 28,007-person stack",
  "creating OrgMember someone@example.com in organization 102: the service answered 403 Forbidden (this needs org admin of organization 102, which the API key in use lacks)":
    "an error message shown as an example; test/resources/*.test.ts check that wording",
  "updating DatabaseUsers of database 2001: Barbara Liskov <barbara@northwind.example> (user 1004) loses DB_ADMIN of database 2001, its last DB_ADMIN; organization 102's org admin still administers it (orgAdminAccess is on)":
    "a preview's message shown as an example; test/engine/lockout.test.ts and test/resources/rosters.test.ts check that wording",
};
