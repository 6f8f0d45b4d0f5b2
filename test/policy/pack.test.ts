/**
 * The policy pack as shipped: the folder's files, and the pack run by path from a consumer's
 * node_modules after installing the package's tarball (`npm pack`), as
 * `pulumi preview --policy-pack node_modules/pulumi-reviewadmin/policy` would run it.
 * Needs the build (dist/), which `npm test` runs first.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACK_NAME } from "../../policy/policies";
import { PolicyPackProcess } from "./analyzer";
import { res } from "./fixtures";

const repoRoot = path.resolve(__dirname, "../..");
const rootPackage = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8"));

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
      // --ignore-scripts: pack the dist/ `npm test` built; a rebuild here would replace it under
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
