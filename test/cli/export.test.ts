/**
 * `pulumi-reviewadmin export` against the emulator, run in this process: the project it writes
 * (its files, its lines, the DECIDE comments, named after its folder), byte-identical twice over
 * the same world, a change in the world exactly the diff of two exports, the list bound on a
 * scaled world, and bad input writing nothing. The project run as a user runs it (installed from
 * the packed tarball, tsc, `pulumi up` by the real engine): test/engine/exportedProject.test.ts.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { NARROW, useExportWorld } from "./exportWorld";
import { runCli } from "./runCli";

const U = SEEDED.users;
const { emu, tmp, newDir, newAccessDir, exportWith, exported } = useExportWorld("export");

const filesOf = (dir: string) =>
  Object.fromEntries(
    fs
      .readdirSync(dir)
      .filter((f) => f !== "node_modules")
      .sort()
      .map((f) => [f, fs.readFileSync(path.join(dir, f), "utf8")]),
  );

describe("pulumi-reviewadmin export: the seeded world", () => {
  it("writes the project, progress on stderr and a summary on stdout; a second export is byte-identical", async () => {
    emu.reset();
    const dir = newAccessDir("seeded");
    emu.traffic.log.reset();
    const r = await exportWith(["--out", dir]);
    expect(r.code, r.err).toBe(0);
    expect(Object.keys(filesOf(dir))).toEqual([
      ".gitignore",
      "Pulumi.yaml",
      "README.md",
      "access.ts",
      "index.ts",
      "package.json",
      "tsconfig.json",
    ]);
    expect(r.out).toContain(
      `Exported 1 organization, 7 members, 2 invitations (1 expired), 1 database (1 more not readable with this key), 1 grant to ${dir} with 6 API requests`,
    );
    expect(r.err).toContain("export: organization 102 (Northwind Legal): 7 members, 2 invitations (1 expired), 2 databases");
    // E2, E18, E14, E9, E23 x 2 (2002 answers 403: org admin access is off).
    expect(emu.traffic.log.counters.total).toBe(6);

    const access = fs.readFileSync(path.join(dir, "access.ts"), "utf8");
    expect(access).toContain(
      `      { email: "ada@northwind.example", firstName: "Ada", lastName: "Lovelace", permissions: ["ORG_ADMIN"], identifiers: [{ abbreviation: "AL", label: "Ada Lovelace" }] },\n`,
    );
    expect(access).toContain(
      `{ email: "grace@northwind.example", firstName: "Grace", lastName: "Hopper", permissions: [], identifiers: [] },\n`,
    );
    // People with no access at all: one counted DECIDE block above the members, naming them (10 or fewer).
    expect(access).toMatch(
      /\/\/ DECIDE: \d+ members? holds? no organization permission and no grant on an exported database\n {4}\/\/ \(permissions: \[\] and no line under databases\): keep or remove\? [^\n]*grace@northwind\.example/,
    );
    expect(access).toMatch(
      /\{ email: "new\.hire@northwind\.example", firstName: "New", lastName: "Hire", permissions: \[\] \}, \/\/ expires \d{4}-\d\d-\d\d\n/,
    );
    expect(access).toMatch(
      / {4}expiredInvitations: \[\n {6}\{ email: "late\.joiner@northwind\.example", firstName: "Late", lastName: "Joiner", permissions: \["LEGAL_HOLD_ADMIN"\] \}, \/\/ DECIDE: expired \d{4}-\d\d-\d\d: re-send or drop\?\n/,
    );
    expect(access).toContain('// Not exported: database 2002 "Internal Investigation": org admin access is off on it');
    expect(access).toContain(`          ${U.multiOrgMember}: ["DB_UPLOAD"], // Margaret Hamilton <margaret@northwind.example>\n`);
    const index = fs.readFileSync(path.join(dir, "index.ts"), "utf8");
    expect(index).toContain("const adopted: pulumi.CustomResourceOptions = { retainOnDelete: true };");
    expect(index).toContain('const mode = "additive" as reviewadmin.RosterMode;');
    // Walls are not in the API: a commented EthicalWall over the exported databases, to fill in.
    expect(index).toContain(
      '// new reviewadmin.EthicalWall("wall-1", {\n//   databaseIds: [2001], // Northwind v. Contoso (2001)\n//   people: ["someone@example.com", "*@opposing-counsel.example"],\n',
    );
    expect(JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).dependencies).toEqual({
      "@pulumi/pulumi": "^3.270.0",
      // The release that wrote it (a release moves package.json's version: scripts/release/cut.mts).
      "pulumi-reviewadmin": `^${(JSON.parse(fs.readFileSync(path.resolve(__dirname, "../../package.json"), "utf8")) as { version: string }).version}`,
    });
    // Named after its folder, as `pulumi new` names a project: `--out access` is project access,
    // so docs/gitops.md's stack organization/access/prod (acme/access/prod) fits it.
    expect(fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8")).toMatch(/^name: access\n/);
    expect(JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).name).toBe("access");

    const again = await exported("seeded-again");
    expect(filesOf(again)).toEqual(filesOf(dir));
    // An organization-level key administers the same organization: the same export.
    const out = newAccessDir("org-key");
    expect((await exportWith(["--out", out], "orgKey")).code).toBe(0);
    expect(filesOf(out)).toEqual(filesOf(dir));
  });

  // Its up (adopting with 0 writes, expired invitations not re-sent) runs in test/engine/signoffLoop.test.ts, with every style;
  // tsc judges its dates in test/engine/exportedProject.test.ts.
  it("per-person style: one OrgMember per person (expired invitations adopted, not re-sent) and one DatabaseUserPermissions per grant", async () => {
    emu.reset();
    const out = await exported("per-person", ["--style", "per-person"]);
    const index = fs.readFileSync(path.join(out, "index.ts"), "utf8");
    expect(index).toContain("resendWhenExpired: false");
    expect(fs.readFileSync(path.join(out, "access.ts"), "utf8")).toContain(
      "index.ts adopts each with resendWhenExpired: false, so nothing is sent",
    );
    expect(index).toContain("new reviewadmin.OrgMember(");
    expect(index).toContain("new reviewadmin.DatabaseUserPermissions(");
  });

  // Its up (0 writes, the expired invitation kept) runs in test/engine/signoffLoop.test.ts, with every style.
  it("authoritative mode keeps expired invitations in place (protected)", async () => {
    emu.reset();
    const out = await exported("authoritative", ["--mode", "authoritative"]);
    expect(fs.readFileSync(path.join(out, "access.ts"), "utf8")).toContain(
      "as a review's remove does: the next\n    // up withdraws the invitation",
    );
    expect(fs.readFileSync(path.join(out, "access.ts"), "utf8")).toContain(SEEDED.invitations.expired);
  });

  // The project's first up (0 writes) runs in test/engine/exportedProject.test.ts.
  it("scope flags: no grants, no invitations, no identifiers, no retainOnDelete", async () => {
    emu.reset();
    const out = await exported("narrow", NARROW);
    const access = fs.readFileSync(path.join(out, "access.ts"), "utf8");
    expect(access).not.toContain("identifiers: [");
    expect(access).toContain("    databases: [],\n");
    expect(access).toContain("    invitations: [],\n    expiredInvitations: [],\n");
    expect(access).not.toMatch(/no organization permission and no grant/); // not judged without grants
    expect(fs.readFileSync(path.join(out, "index.ts"), "utf8")).toContain("const adopted: pulumi.CustomResourceOptions = {};");
    expect(fs.readFileSync(path.join(out, "README.md"), "utf8")).toContain(
      "npx --no-install pulumi-reviewadmin export --org 102 --no-grants --no-invitations --no-identifiers --no-retain --project narrow --out . --force",
    );
  });

  it("the project is named after the output folder (made a valid name), keeps its name on --force, and --project wins", async () => {
    emu.reset();
    const nameIn = (dir: string) => /^name: (.*)$/m.exec(fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8"))?.[1];
    const odd = path.join(newDir("odd"), "Access Rights (Prod)");
    expect((await exportWith(["--out", odd, "--quiet"])).code).toBe(0);
    expect(nameIn(odd)).toBe("access-rights-prod");
    expect(JSON.parse(fs.readFileSync(path.join(odd, "package.json"), "utf8")).name).toBe("access-rights-prod");
    // Exporting again into a project keeps the name its stacks were made with, whatever the folder is called.
    const renamed = path.join(newDir("renamed"), "access-copy");
    fs.mkdirSync(renamed, { recursive: true });
    fs.writeFileSync(path.join(renamed, "Pulumi.yaml"), "name: reviewadmin-access\nruntime: nodejs\n");
    expect((await exportWith(["--out", renamed, "--force", "--quiet"])).code).toBe(0);
    expect(nameIn(renamed)).toBe("reviewadmin-access");
    expect((await exportWith(["--out", renamed, "--force", "--quiet", "--project", "legal-access"])).code).toBe(0);
    expect(nameIn(renamed)).toBe("legal-access");
    // Nothing valid left of the folder's name: the old default.
    const dashes = path.join(newDir("dashes"), "__");
    expect((await exportWith(["--out", dashes, "--quiet"])).code).toBe(0);
    expect(nameIn(dashes)).toBe("reviewadmin-access");
  });

  it("a suspended account's grant and a user from outside the organization are exported with a comment", async () => {
    emu.reset();
    emu.store.users.get(U.multiOrgMember).active = false;
    emu.store.databases.setUser(SEEDED.databases.open, U.noAccess, ["DB_UPLOAD"]);
    const access = fs.readFileSync(path.join(await exported("suspended"), "access.ts"), "utf8");
    expect(access).toContain(
      `${U.multiOrgMember}: ["DB_UPLOAD"], // Margaret Hamilton <margaret@northwind.example>; DECIDE: suspended account (active: false): keep this grant or remove it?`,
    );
    expect(access).toContain(`${U.noAccess}: ["DB_UPLOAD"], // Radia Perlman <radia@contoso.example>; not a member of Northwind Legal`);
  });

  it("--json prints the summary for scripts", async () => {
    emu.reset();
    const out = newDir("json");
    const r = await exportWith(["--out", out, "--json", "--quiet"]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe("");
    const summary = JSON.parse(r.out);
    expect(summary).toMatchObject({
      out: path.normalize(out),
      organizations: [
        {
          id: 102,
          name: "Northwind Legal",
          members: 7,
          invitations: 1,
          expiredInvitations: 1,
          databases: 1,
          databasesNotReadable: 1,
          grants: 1,
        },
      ],
      requests: 6,
    });
  });

  it("a change in the world (a permission, a grant, a new invitation) is exactly the diff of two exports", async () => {
    emu.reset();
    const before = await exported("before");
    emu.store.members.update(SEEDED.org, U.aiAdmin, { permissions: ["AI_ADMIN", "LEGAL_HOLD_ADMIN"] });
    emu.store.databases.setUser(SEEDED.databases.open, U.multiOrgMember, ["DB_DELETE", "DB_UPLOAD"]);
    emu.store.invitations.create(SEEDED.org, {
      email: "priya@northwind.example",
      firstName: "Priya",
      lastName: "Raman",
      permissions: ["LEGAL_HOLD_ADMIN"],
    });
    const after = await exported("after");
    const diff = spawnSync("diff", ["-r", "-U0", before, after], { encoding: "utf8" }).stdout;
    const changed = diff.split("\n").filter((l) => /^[-+][^-+]/.test(l));
    expect(changed).toEqual([
      `-      { email: "ken@northwind.example", firstName: "Ken", lastName: "Thompson", permissions: ["AI_ADMIN"], identifiers: [{ abbreviation: "KT", label: "Ken Thompson" }] },`,
      `+      { email: "ken@northwind.example", firstName: "Ken", lastName: "Thompson", permissions: ["AI_ADMIN", "LEGAL_HOLD_ADMIN"], identifiers: [{ abbreviation: "KT", label: "Ken Thompson" }] },`,
      expect.stringMatching(
        /^\+ {6}\{ email: "priya@northwind\.example", firstName: "Priya", lastName: "Raman", permissions: \["LEGAL_HOLD_ADMIN"\] \}, \/\/ expires /,
      ),
      `-          ${U.multiOrgMember}: ["DB_UPLOAD"], // Margaret Hamilton <margaret@northwind.example>`,
      `+          ${U.multiOrgMember}: ["DB_DELETE", "DB_UPLOAD"], // Margaret Hamilton <margaret@northwind.example>`,
    ]);
    expect(diff.match(/^diff -r/gm)).toHaveLength(1); // access.ts only
  });
});

describe("pulumi-reviewadmin export: bad input gets one line and writes nothing", () => {
  beforeAll(() => void emu.reset());

  /** Runs an export that must fail, and checks that it wrote nothing. */
  async function refused(args: string[], key = "orgAdmin", out = newDir("refused")) {
    const r = await exportWith(["--out", out, ...args], key);
    expect(r.out).toBe("");
    expect(
      r.err
        .trimEnd()
        .split("\n")
        .filter((l) => !l.startsWith("export: ")),
    ).toHaveLength(1);
    expect(fs.existsSync(out)).toBe(false);
    return r;
  }

  it("an unknown organization", async () => {
    expect(await refused(["--org", "999"])).toMatchObject({
      code: 1,
      err: expect.stringContaining("pulumi-reviewadmin export: unknown organization 999: the key can see 102 (Northwind Legal)\n"),
    });
  });

  it("a key without org admin says which right is missing", async () => {
    expect((await refused([], "multiOrgMember")).err).toContain(
      "pulumi-reviewadmin export: the key administers no organization: exporting needs org admin (an organization-level key, or the key of a member with ORG_ADMIN); its user is a member of 102 (Northwind Legal), 103 (Northwind Compliance) without ORG_ADMIN\n",
    );
    expect((await refused(["--org", "102"], "multiOrgMember")).err).toContain(
      "pulumi-reviewadmin export: the key lacks org admin on organization 102 (Northwind Legal): its user is a member without ORG_ADMIN, and listing members and invitations needs org admin\n",
    );
    expect((await refused(["--org", "102"], "parentOrgAdmin")).err).toContain(
      "pulumi-reviewadmin export: the key lacks org admin on organization 102 (Northwind Legal): it is parent org admin (of 101 (Northwind Holdings)), which does not reach members and invitations; use a key of organization 102\n",
    );
  });

  it("an invalid key", async () => {
    fs.writeFileSync(path.join(tmp(), "bad-key"), "ra.nothing.here");
    const out = newDir("bad-key");
    const r = await runCli(["export", "--base-url", emu.url, "--api-key-file", path.join(tmp(), "bad-key"), "--out", out]);
    expect(r).toMatchObject({ code: 1, out: "" });
    expect(r.err).toMatch(
      /^pulumi-reviewadmin export: reading the key's own account \(GET \/v1\/users\/me\): the service answered 401 .*\n$/,
    );
    expect(fs.existsSync(out)).toBe(false);
  });

  it("an output folder that is not empty, unless --force (which leaves other files alone); before any request", async () => {
    const out = newDir("full");
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, "Pulumi.dev.yaml"), "config: {}\n");
    emu.traffic.log.reset();
    const r = await exportWith(["--out", out]);
    expect(r).toEqual({
      code: 2,
      out: "",
      err: `pulumi-reviewadmin export: the output folder ${out} exists and is not empty: choose another, or pass --force to rewrite the exported files in it (other files are left as they are) (see pulumi-reviewadmin export --help)\n`,
    });
    expect(emu.traffic.log.counters.total).toBe(0);
    expect(fs.readdirSync(out)).toEqual(["Pulumi.dev.yaml"]);
    expect((await exportWith(["--out", out, "--force", "--quiet"])).code).toBe(0);
    expect(fs.readdirSync(out)).toContain("access.ts");
    expect(fs.readFileSync(path.join(out, "Pulumi.dev.yaml"), "utf8")).toBe("config: {}\n");
  });

  it("no key, and flags that do not go together", async () => {
    const out = newDir("no-key");
    const noKey = await runCli(["export", "--base-url", emu.url, "--api-key-env", "REVIEWADMIN_TEST_UNSET_KEY", "--out", out]);
    expect(noKey).toEqual({
      code: 2,
      out: "",
      err: "pulumi-reviewadmin export: no API key: set REVIEWADMIN_TEST_UNSET_KEY, or name a file that holds it with --api-key-file (never the key itself on the command line: it would stay in the shell's history) (see pulumi-reviewadmin export --help)\n",
    });
    expect((await refused(["--style", "flat"])).err).toContain("--style must be rosters or per-person, got 'flat'");
    expect((await refused(["--mode", "authoritative", "--no-invitations"])).err).toContain("--no-invitations needs --mode additive");
    expect((await refused(["--org", "abc"])).err).toContain("--org must be a positive integer, got 'abc'");
    expect(fs.existsSync(out)).toBe(false);
  });
});

describe("pulumi-reviewadmin export: a scaled world (2,000 members, 50 databases x 40 users)", () => {
  const SCALE = { members: 2000, databases: 50, usersPerDatabase: 40 };
  beforeAll(() => {
    emu.reset(1, SCALE);
  });

  // Its project type-checks in test/engine/exportedProject.test.ts; its up at scale runs in
  // test/engine/gitops.test.ts (2,007 members, 0 writes) and in npm run bench (4,007 and 28,007).
  it("exports within the list bound: ceil(members/200) + databases x ceil(users/200) + organizations x 5", async () => {
    emu.traffic.log.reset();
    const dir = await exported("scaled");
    const requests = emu.traffic.log.counters.total;
    const members = emu.store.members.of(SEEDED.org).length;
    const databases = emu.store.databases.of(SEEDED.org);
    const bound =
      Math.ceil(members / 200) +
      databases.reduce((n, d) => n + Math.ceil(Math.max(1, emu.store.databases.usersOf(d.id).length) / 200), 0) +
      5;
    expect(members).toBe(2000 + 50 * 40 + 7);
    expect(requests).toBeLessThanOrEqual(bound);
    const access = fs.readFileSync(path.join(dir, "access.ts"), "utf8");
    expect(access.match(/^ {6}\{ email: /gm)).toHaveLength(members + 2); // and the two invitations
    expect(access.match(/^ {10}\d+: \["DB_UPLOAD"\],/gm)).toHaveLength(50 * 40 + 1);
  });
});
