/**
 * The release (scripts/release.mts, docs/release.md), as a user of Pulumi YAML meets it: the
 * release build written into a temporary folder (a dry run: the repository is left as it is),
 * its checksums, and its linux-x64 plugin archive installed with `pulumi plugin install resource
 * reviewadmin <version> --file <archive>` into a temporary PULUMI_HOME. Then a YAML program with
 * no `plugins.providers` entry, run by the Pulumi CLI with no Node on the PATH (only the CLI's
 * bin/ and the system's commands without node), against the emulator: up, a no-change up that
 * writes nothing, one change, destroy. The executable and the schema it serves name the version,
 * and the executable and the CLI the commit they were built from.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { runAsync } from "../../harness/runAsync";
import { versionText, type BuildStamp } from "../../contract/buildInfo";
import { useEmulator } from "../support/emulatorHttp";
import { missingTool, noEngine, skipWithoutEngine } from "../support/engine";
import { writesFrom } from "../support/programWorld";

const ROOT = path.resolve(__dirname, "../..");
const ORG = SEEDED.org;
const DB = SEEDED.databases.open;
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const ARCHIVE = `pulumi-resource-reviewadmin-v${VERSION}-linux-amd64.tar.gz`;
const TARBALL = `pulumi-reviewadmin-${VERSION}.tgz`;
/** Commands a PATH without Node leaves out. */
const NODE_COMMANDS = new Set(["node", "nodejs", "npm", "npx", "corepack"]);

const NO_YAML = missingTool({ "pulumi-language-yaml": "tools/pulumi-cli/build.sh builds it beside the CLI" });
skipWithoutEngine("test/engine/release.test.ts");

/** The folder holding `command` on this process's PATH. */
function binOf(command: string): string {
  const dir = (process.env.PATH ?? "").split(path.delimiter).find((d) => d && fs.existsSync(path.join(d, command)));
  if (!dir) throw new Error(`${command} is not on PATH`);
  return dir;
}

/**
 * A PATH without Node: the Pulumi CLI's bin/ (its language hosts, none of them Node) and a folder
 * of links to the system's commands (/usr/local/bin, /usr/bin, /bin) less node, npm and the like.
 */
function pathWithoutNode(): string {
  const links = fs.mkdtempSync(path.join(os.tmpdir(), "release-no-node-"));
  for (const dir of ["/usr/local/bin", "/usr/bin", "/bin"]) {
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir)) {
      if (NODE_COMMANDS.has(name) || fs.existsSync(path.join(links, name))) continue;
      fs.symlinkSync(path.join(dir, name), path.join(links, name));
    }
  }
  return [binOf("pulumi"), links].join(path.delimiter);
}

const PROGRAM = (permissions: string[]) => `name: release-yaml
runtime: yaml
description: The release's plugin, installed with pulumi plugin install; no plugins entry, no Node.
resources:
  zoe:
    type: reviewadmin:index:Invitation
    properties:
      organizationId: ${ORG}
      email: zoe@example.com
  alan-grant:
    type: reviewadmin:index:DatabaseUserPermissions
    properties:
      databaseId: ${DB}
      userId: ${SEEDED.users.member}
      permissions: [${permissions.join(", ")}]
variables:
  organization:
    fn::invoke:
      function: reviewadmin:index:getOrganization
      arguments:
        organizationId: ${ORG}
outputs:
  organizationName: \${organization.name}
`;

const emu = useEmulator();
let out: string;
/** What this build says it is: the version, and the commit scripts/build.js stamped into dist/. */
let built: string;
beforeAll(async () => {
  if (noEngine) return;
  out = fs.mkdtempSync(path.join(os.tmpdir(), "release-out-"));
  const r = await runAsync(process.execPath, [path.join(ROOT, "scripts/release.mts"), VERSION, "--dry-run", "--out", out], { cwd: ROOT });
  expect(r.code, r.stderr).toBe(0);
  const stamp = JSON.parse(fs.readFileSync(path.join(ROOT, "dist/build-info.json"), "utf8")) as BuildStamp;
  expect(stamp.commit).toMatch(/^[0-9a-f]{40}$/);
  built = versionText(VERSION, stamp);
}, 600_000);
afterAll(() => {
  if (out) fs.rmSync(out, { recursive: true, force: true });
});

describe("the release", () => {
  it("holds the npm tarball and the linux-x64 plugin archive, with their SHA-256 in SHA256SUMS", () => {
    expect(fs.readdirSync(out).sort()).toEqual(["SHA256SUMS", ARCHIVE, TARBALL].sort());
    const sums = fs.readFileSync(path.join(out, "SHA256SUMS"), "utf8");
    for (const file of [ARCHIVE, TARBALL]) {
      const sha = createHash("sha256")
        .update(fs.readFileSync(path.join(out, file)))
        .digest("hex");
      expect(sums).toContain(`${sha}  ${file}\n`);
    }
    // The CLI of this build names its version and the commit stamped into dist/.
    const cli = spawnSync(process.execPath, [path.join(ROOT, "dist/cli/main.js"), "--version"], { encoding: "utf8" });
    expect(cli.stdout).toBe(`${built}\n`);
  });

  // Skipped only on a machine whose Pulumi CLI has no YAML host (the reason is printed); CI builds it and fails instead.
  it.skipIf(!!NO_YAML)(
    "installs with pulumi plugin install --file; a YAML program with no plugins entry and no Node on the PATH: up, no-change up, change, destroy",
    { timeout: 300_000 },
    async () => {
      emu.reset();
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "release-yaml-"));
      const home = path.join(dir, ".pulumi-home");
      fs.mkdirSync(path.join(dir, ".state"));
      const PATH = pathWithoutNode();
      const env = {
        PATH,
        PULUMI_HOME: home,
        PULUMI_BACKEND_URL: `file://${path.join(dir, ".state")}`,
        PULUMI_CONFIG_PASSPHRASE: "release-test",
        PULUMI_SKIP_UPDATE_CHECK: "true",
      };
      const sh = (command: string) => runAsync("/bin/sh", ["-c", command], { cwd: dir, env });
      const pulumi = (...args: string[]) => runAsync(path.join(binOf("pulumi"), "pulumi"), args, { cwd: dir, env });
      const ok = async (p: Promise<{ code: number | null; stdout: string; stderr: string }>) => {
        const r = await p;
        expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
        return r.stdout;
      };
      expect((await sh("command -v node")).code).not.toBe(0);

      await ok(pulumi("plugin", "install", "resource", "reviewadmin", VERSION, "--file", path.join(out, ARCHIVE)));
      const plugin = path.join(home, "plugins", `resource-reviewadmin-v${VERSION}`);
      expect(fs.readdirSync(plugin).sort()).toEqual(["LICENSE", "pulumi-resource-reviewadmin"]);
      expect(await ok(sh(`"${plugin}/pulumi-resource-reviewadmin" --version`))).toBe(`pulumi-resource-reviewadmin ${built}\n`);
      // Unpacked once, beside the executable: `pulumi plugin rm` takes it away with the plugin.
      expect(fs.readdirSync(plugin).filter((f) => f.startsWith(".reviewadmin-"))).toHaveLength(1);
      const schema = JSON.parse(await ok(pulumi("package", "get-schema", "reviewadmin"))) as { version: string };
      expect(schema.version).toBe(VERSION);

      fs.writeFileSync(path.join(dir, "Pulumi.yaml"), PROGRAM(["DB_UPLOAD"]));
      await ok(pulumi("stack", "init", "dev", "--non-interactive"));
      await ok(pulumi("config", "set", "reviewadmin:baseUrl", emu.url));
      await ok(pulumi("config", "set", "--secret", "reviewadmin:apiKey", emu.keys.orgAdmin!));
      const run = (...args: string[]) => ok(pulumi(...args, "--yes", "--non-interactive", "--color", "never"));

      expect(await run("up", "--skip-preview")).toContain('organizationName: "Northwind Legal"');
      expect(emu.store.invitations.of(ORG).map((i) => i.email)).toContain("zoe@example.com");
      expect(emu.store.databases.findUser(DB, SEEDED.users.member)?.permissions).toEqual(["DB_UPLOAD"]);

      const since = writesFrom(emu);
      await run("up", "--expect-no-changes");
      expect(since()).toEqual([]);

      fs.writeFileSync(path.join(dir, "Pulumi.yaml"), PROGRAM(["DB_UPLOAD", "DB_DELETE"]));
      const change = writesFrom(emu);
      expect(await run("up", "--skip-preview")).toMatch(/1 updated/);
      expect(change()).toHaveLength(1);
      expect(emu.store.databases.findUser(DB, SEEDED.users.member)?.permissions?.slice().sort()).toEqual(["DB_DELETE", "DB_UPLOAD"]);

      await run("destroy", "--skip-preview");
      expect(emu.store.databases.findUser(DB, SEEDED.users.member)).toBeUndefined();
      expect(emu.store.invitations.of(ORG).map((i) => i.email)).not.toContain("zoe@example.com");
      fs.rmSync(dir, { recursive: true, force: true });
    },
  );
});
