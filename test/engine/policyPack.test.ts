/**
 * The policy pack as the engine runs it, from dist/ (built by the engine tier's global setup):
 * the policy/ folder's files; the pack in its own process, started from that folder as the CLI
 * starts it, over the analyzer's gRPC interface (test/policy/analyzer.ts): its description, the
 * policy config and enforcement levels, and the diagnostics the engine would print; and the pack
 * run by path from a consumer's node_modules after installing the package's tarball
 * (`npm pack`), as `pulumi preview --policy-pack node_modules/pulumi-reviewadmin/policy` would run
 * it. Each policy on plain values: test/policy/.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACK_NAME } from "../../policy/policies";
import { PolicyPackProcess, type Diagnostic } from "../policy/analyzer";
import { nvcWall, res, UNKNOWN_WIRE } from "../policy/fixtures";

const repoRoot = path.resolve(__dirname, "../..");
const rootPackage = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8"));
const packDir = path.join(repoRoot, "policy");

describe("the policy/ folder", () => {
  it("is a nodejs policy pack whose package.json names the compiled pack and the package's version", () => {
    expect(fs.readFileSync(path.join(repoRoot, "policy/PulumiPolicy.yaml"), "utf8")).toMatch(/^runtime: nodejs$/m);
    const pack = JSON.parse(fs.readFileSync(path.join(repoRoot, "policy/package.json"), "utf8"));
    expect(pack.version).toBe(rootPackage.version);
    expect(pack.main).toBe("../dist/policy/index.js");
    expect(fs.existsSync(path.resolve(repoRoot, "policy", pack.main))).toBe(true);
    // @pulumi/policy resolves from the package's own dependencies.
    expect(rootPackage.dependencies["@pulumi/policy"]).toMatch(/^\^1\./);
  });
});

describe("the pack in its own process, as the CLI runs it (policy/ folder, analyzer gRPC)", () => {
  let pack: PolicyPackProcess;
  beforeAll(async () => {
    pack = await PolicyPackProcess.start(packDir);
  });
  afterAll(() => pack?.close());

  const bad = [
    res("OrgMember", "mallory", { organizationId: 102, email: "mallory@contoso.example", permissions: ["ORG_ADMIN"] }),
    res("OrganizationMembers", "legal", {
      organizationId: 102,
      mode: "additive",
      members: { "ada@northwind.example": { permissions: ["ORG_ADMIN"] } },
    }),
    res("OrgMember", "ada", { organizationId: 102, email: "ada@northwind.example" }),
    res("DatabaseUsers", "nvc", { databaseId: 2001, mode: "authoritative", users: { "1003": ["DB_UPLOAD"] } }),
  ];
  const summary = (ds: Diagnostic[]) => ds.map((d) => `${d.enforcementLevel} ${d.policyName} ${d.urn.split("::").at(-1)}`);

  it("describes itself: name, the package's version, its policies with their levels, schemas and remediation", async () => {
    const info = await pack.info();
    expect(info.name).toBe(PACK_NAME);
    expect(info.version).toBe(rootPackage.version);
    expect(info.policies.map((p) => [p.name, p.policyType, p.enforcementLevel])).toEqual([
      ["org-permissions-allowed-domains", "resource", "mandatory"],
      ["members-allowed-domains", "resource", "mandatory"],
      ["org-admin-count", "stack", "mandatory"],
      ["database-admin-present", "stack", "mandatory"],
      ["single-ownership-level", "stack", "mandatory"],
      ["invitation-expiry-horizon", "stack", "advisory"],
      ["ethical-walls", "stack", "mandatory"],
      ["external-access-expires", "stack", "mandatory"],
      ["stale-privileged-access", "stack", "advisory"],
    ]);
    const schema = Object.fromEntries(info.policies.map((p) => [p.name, p.configSchema]));
    expect(schema["org-admin-count"]).toMatchObject({
      maxOrgAdmins: { default: 3 },
      minOrgAdmins: { default: 1 },
      scope: { default: "authoritative" },
    });
    expect(schema["invitation-expiry-horizon"]).toMatchObject({ horizonDays: { default: 7 }, invitationLifetimeDays: { default: 14 } });
    expect(schema["org-permissions-allowed-domains"]).toMatchObject({
      allowedDomains: { default: [] },
      externalReviewers: {},
      externalReviewerPermissions: {},
      userEmails: {},
    });
    for (const p of info.policies) expect(p.remediationSteps, p.name).not.toBe("");
  });

  it("reports a bad stack with the default config (domain rules off until allowedDomains is set)", async () => {
    await pack.configure({});
    const ds = await pack.run(bad);
    expect(summary(ds)).toEqual(["mandatory database-admin-present nvc", "mandatory single-ownership-level ada"]);
    // The engine shows the policy's description, then the message.
    expect(ds[0]!.message).toMatch(
      /^Every database keeps at least one DB_ADMIN .*\ndatabase 2001 would have no DB_ADMIN among what the stack declares \(DatabaseUsers "nvc": user 1003 DB_UPLOAD\)\. Fix: /s,
    );
    expect(ds.every((d) => d.policyPackName === PACK_NAME)).toBe(true);
  });

  it("takes its options and enforcement levels from the policy config", async () => {
    await pack.configure({
      "org-permissions-allowed-domains": { allowedDomains: ["northwind.example"] },
      "members-allowed-domains": { enforcementLevel: "advisory", allowedDomains: ["northwind.example"] },
      "database-admin-present": "disabled",
      "single-ownership-level": { enforcementLevel: "advisory" },
    });
    const ds = await pack.run(bad);
    expect(summary(ds)).toEqual([
      "mandatory org-permissions-allowed-domains mallory",
      "advisory members-allowed-domains mallory",
      "advisory single-ownership-level ada",
    ]);
    expect(ds[0]!.message).toContain('OrgMember "mallory": mallory@contoso.example would hold ORG_ADMIN in organization 102');
    // "all" sets every level; a policy's own entry still wins.
    await pack.configure({ all: "advisory", "database-admin-present": "mandatory" });
    expect(summary(await pack.run(bad))).toEqual(["mandatory database-admin-present nvc", "advisory single-ownership-level ada"]);
  });

  it('preview unknowns anywhere produce no violation and no "can\'t run during preview" note', async () => {
    await pack.configure({
      "org-permissions-allowed-domains": { allowedDomains: ["northwind.example"] },
      "members-allowed-domains": { allowedDomains: ["northwind.example"] },
      "org-admin-count": { maxOrgAdmins: 1, scope: "declared" },
      "database-admin-present": { scope: "declared" },
      "invitation-expiry-horizon": { horizonDays: 30 },
    });
    const preview = [
      res("OrgMember", "a", { organizationId: 102, email: UNKNOWN_WIRE, permissions: ["ORG_ADMIN"] }),
      res("OrgMember", "b", { organizationId: 102, email: "b@northwind.example", permissions: UNKNOWN_WIRE }),
      res("OrgMember", "c", { organizationId: UNKNOWN_WIRE, email: "ada@northwind.example", permissions: ["ORG_ADMIN"] }),
      res("OrganizationMembers", "legal", {
        organizationId: 102,
        mode: "authoritative",
        members: UNKNOWN_WIRE,
        protectedEmails: UNKNOWN_WIRE,
      }),
      res("DatabaseUserPermissions", "g", { databaseId: 2001, userId: UNKNOWN_WIRE, permissions: UNKNOWN_WIRE }),
      res("DatabaseUsers", "nvc", { databaseId: UNKNOWN_WIRE, mode: "authoritative", users: { "1003": ["DB_UPLOAD"] } }),
      res("Invitation", "i", { organizationId: 102, email: UNKNOWN_WIRE, status: UNKNOWN_WIRE }),
    ];
    expect(await pack.run(preview)).toEqual([]);
  });

  it("ethical-walls: reports the roster crossing the wall, mandatory, with the wall's message; a stack without walls is not judged", async () => {
    await pack.configure({});
    const roster = res("DatabaseUsers", "nvc", {
      databaseId: 2001,
      mode: "additive",
      users: { "1010": ["DB_UPLOAD"], "1004": ["DB_ADMIN"] },
    });
    const ds = (await pack.run([nvcWall(), roster])).filter((d) => d.policyName === "ethical-walls");
    expect(ds.map((d) => [d.enforcementLevel, d.urn.split("::").at(-1)])).toEqual([["mandatory", "nvc"]]);
    expect(ds[0]!.message).toContain('EthicalWall "nvc-wall" walls ken@northwind.example off database 2001 (Ken advised Contoso)');
    expect((await pack.run([roster])).filter((d) => d.policyName === "ethical-walls")).toEqual([]);
    await pack.configure({ "ethical-walls": "advisory" });
    expect((await pack.run([nvcWall(), roster])).filter((d) => d.policyName === "ethical-walls").map((d) => d.enforcementLevel)).toEqual([
      "advisory",
    ]);
  });
});

describe("installed from the package's tarball", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "policy-consumer-"));
  let pack: PolicyPackProcess | undefined;
  afterAll(() => {
    pack?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("runs by path from node_modules/pulumi-reviewadmin/policy", async () => {
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const out = JSON.parse(
      // --ignore-scripts: pack the dist/ the engine tier's setup built; a rebuild here would replace it under
      // the test files running beside this one.
      execFileSync(npm, ["pack", "--json", "--ignore-scripts", "--pack-destination", tmp], {
        cwd: repoRoot,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }),
    );
    const files = (out[0].files as { path: string }[]).map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        "policy/PulumiPolicy.yaml",
        "policy/package.json",
        "dist/policy/index.js",
        "dist/policy/policies.js",
        "dist/policy/declarations.js",
        "dist/policy/rules/orgAdminCount.js",
      ]),
    );
    expect(files.filter((f) => f.startsWith("policy/"))).toHaveLength(2); // sources are not shipped

    // A consumer project: the tarball unpacked as node_modules/pulumi-reviewadmin, its
    // dependencies (already installed here) linked beside it as npm would hoist them.
    const modules = path.join(tmp, "consumer/node_modules");
    const installed = path.join(modules, "pulumi-reviewadmin");
    fs.mkdirSync(installed, { recursive: true });
    execFileSync("tar", ["xzf", path.join(tmp, out[0].filename), "-C", installed, "--strip-components=1"]);
    for (const dep of fs.readdirSync(path.join(repoRoot, "node_modules"))) {
      if (dep === "pulumi-reviewadmin" || dep.startsWith(".")) continue;
      fs.symlinkSync(path.join(repoRoot, "node_modules", dep), path.join(modules, dep));
    }

    pack = await PolicyPackProcess.start(path.join(installed, "policy"));
    const info = await pack.info();
    expect([info.name, info.version]).toEqual([PACK_NAME, rootPackage.version]);
    await pack.configure({ "org-permissions-allowed-domains": { allowedDomains: ["northwind.example"] } });
    const ds = await pack.analyze(
      res("OrgMember", "mallory", { organizationId: 102, email: "mallory@contoso.example", permissions: ["ORG_ADMIN"] }),
    );
    expect(ds.map((d) => [d.policyName, d.enforcementLevel])).toEqual([["org-permissions-allowed-domains", "mandatory"]]);
  }, 120_000);
});
