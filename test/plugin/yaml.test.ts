/**
 * Pulumi YAML on the plugin face, as a user runs it: the documented example
 * (examples/plugin-yaml/Pulumi.yaml, with the package installed beside it) under the real Pulumi
 * CLI and its YAML language host, against the emulator: up; a no-change up with no request; one
 * person changed, whose `pulumi preview --diff` names that person's path only; drift made in the
 * web application found by refresh and repaired by up; destroy; then `pulumi import` by id, whose
 * generated YAML, run as the program, writes nothing; docs/plugin.md's explicit provider. And the
 * projects `export --face plugin` (TypeScript on `reviewadmin.plugin.*`) and `export --language yaml`
 * write, installed from the package tarball: their first up adopts everything with no write.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEEDED, startEmulator, type RunningEmulator } from "../../emulator";
import { missingTool, skipWithoutEngine } from "../support/engine";
import { writesFrom } from "../support/programWorld";
import { programFolder } from "../support/providerWorld";
import { runAsync } from "../../harness/runAsync";
import { runCli } from "../cli/runCli";
import { installFromTarball } from "../../bench/exportedProject";

const ORG = SEEDED.org;
const DB = SEEDED.databases.open;
const EXAMPLE = path.resolve(__dirname, "../../examples/plugin-yaml/Pulumi.yaml");

/** Why Pulumi YAML cannot run on this machine (no YAML host beside the CLI), if so. */
const NO_YAML = missingTool({ "pulumi-language-yaml": "tools/pulumi-cli/build.sh builds it beside the CLI" });
skipWithoutEngine("pulumi yaml");

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ rateLimit: 0 });
});
afterAll(async () => {
  await emu?.close();
});

/** A project folder with the package installed (node_modules/pulumi-reviewadmin) and a stack of its own. */
/** `dir`: a project folder as it is (its own Pulumi.yaml and node_modules); else a new one with `pulumiYaml`. */
function project(label: string, pulumiYaml: string | undefined, dir = programFolder(`yaml-${label}-`)) {
  if (pulumiYaml !== undefined) fs.writeFileSync(path.join(dir, "Pulumi.yaml"), pulumiYaml);
  const env = {
    PULUMI_BACKEND_URL: `file://${path.join(dir, ".state")}`,
    PULUMI_CONFIG_PASSPHRASE: "yaml-test",
    PULUMI_SKIP_UPDATE_CHECK: "true",
  };
  fs.mkdirSync(path.join(dir, ".state"));
  const pulumi = (...args: string[]) => runAsync("pulumi", [...args, "--non-interactive", "--color", "never"], { cwd: dir, env });
  return { dir, pulumi };
}

async function stackFor(label: string, pulumiYaml: string | undefined, dir?: string) {
  const p = project(label, pulumiYaml, dir);
  expect((await p.pulumi("stack", "init", "dev")).code).toBe(0);
  expect((await p.pulumi("config", "set", "reviewadmin:baseUrl", emu.url)).code).toBe(0);
  expect((await p.pulumi("config", "set", "--secret", "reviewadmin:apiKey", emu.keys.orgAdmin!)).code).toBe(0);
  expect((await p.pulumi("config", "set", "reviewadmin:requestsPerSecond", "1000")).code).toBe(0);
  return p;
}

/** Exports the emulator's world into a new folder with `flags` (the key in a file, as a user passes it); returns the folder. */
async function exported(flags: string[], project: string): Promise<string> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), `${project}-`));
  const keyFile = path.join(os.tmpdir(), `${project}-key-${process.pid}`);
  fs.writeFileSync(keyFile, emu.keys.orgAdmin!, { mode: 0o600 });
  const r = await runCli(["export", ...flags, "--base-url", emu.url, "--api-key-file", keyFile, "--out", out, "--project", project]);
  expect(r.code, r.err).toBe(0);
  return out;
}

const ok = (r: { code: number | null; stdout: string; stderr: string }) => {
  expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
};

describe("Pulumi YAML and exported projects on the plugin face", () => {
  // Skipped only on a machine whose Pulumi CLI has no YAML host (the reason is printed); CI builds it and fails instead.
  it.skipIf(!!NO_YAML)(
    "applies, changes one person as one path, finds and repairs drift, destroys, and imports by id",
    { timeout: 300_000 },
    async () => {
      emu.reset();
      const example = fs.readFileSync(EXAMPLE, "utf8");
      const p = await stackFor("example", example);
      const up = ok(await p.pulumi("up", "--yes", "--skip-preview"));
      expect(up).toContain('organizationName: "Northwind Legal"');
      expect(emu.store.invitations.of(ORG).map((i) => i.email)).toEqual(
        expect.arrayContaining(["ann@northwind.example", "zoe@example.com"]),
      );
      expect(emu.store.databases.findUser(DB, SEEDED.users.member)?.permissions).toEqual(["DB_UPLOAD"]);

      // Nothing changed: nothing to do, nothing written.
      const since = writesFrom(emu);
      ok(await p.pulumi("up", "--yes", "--expect-no-changes"));
      expect(since()).toEqual([]);

      // One person changes: the preview names bob's path, and nobody else.
      fs.writeFileSync(
        path.join(p.dir, "Pulumi.yaml"),
        example.replace(/(bob@northwind\.example:\n\s+permissions: )\[AI_ADMIN\]/, "$1[AI_ADMIN, LEGAL_HOLD_ADMIN]"),
      );
      const preview = ok(await p.pulumi("preview", "--diff"));
      expect(preview).toMatch(
        /~ members: \{\s+~ bob@northwind\.example: \{[^}]*~ permissions: \[\s+\[0\]: "AI_ADMIN"\s+\+ \[1\]: "LEGAL_HOLD_ADMIN"/,
      );
      expect(preview).not.toContain("ann@northwind.example");
      ok(await p.pulumi("up", "--yes", "--skip-preview"));
      expect(emu.store.invitations.of(ORG).find((i) => i.email === "bob@northwind.example")?.permissions).toEqual([
        "AI_ADMIN",
        "LEGAL_HOLD_ADMIN",
      ]);

      // Drift: the grant removed in the web application; refresh finds it, up puts it back.
      emu.store.databases.removeUser(DB, SEEDED.users.member);
      emu.store.changed();
      const refresh = ok(await p.pulumi("refresh", "--yes"));
      expect(refresh).toMatch(/alan-upload.*removed outside this program|DatabaseUserPermissions.*removed outside this program/s);
      ok(await p.pulumi("up", "--yes", "--skip-preview"));
      expect(emu.store.databases.findUser(DB, SEEDED.users.member)?.permissions).toEqual(["DB_UPLOAD"]);

      ok(await p.pulumi("destroy", "--yes", "--skip-preview"));
      expect(emu.store.databases.findUser(DB, SEEDED.users.member)).toBeUndefined();

      // Import by id; the code import writes is the program, and its up writes nothing.
      const header = example.slice(0, example.indexOf("resources:"));
      const imported = await stackFor("import", `${header}resources: {}\n`);
      const generated = path.join(imported.dir, "generated.yaml");
      ok(
        await imported.pulumi("import", "reviewadmin:index:OrgMember", "ken", `${ORG}/ken@northwind.example`, "--yes", "--out", generated),
      );
      ok(await imported.pulumi("import", "reviewadmin:index:DatabaseUsers", "open", `database/${DB}`, "--yes", "--out", `${generated}.2`));
      const code = [generated, `${generated}.2`].map((f) => fs.readFileSync(f, "utf8").replace(/^resources:\n/, "")).join("");
      expect(code).toContain("type: reviewadmin:OrgMember");
      fs.writeFileSync(path.join(imported.dir, "Pulumi.yaml"), `${header}resources:\n${code}`);
      const quiet = writesFrom(emu);
      ok(await imported.pulumi("up", "--yes", "--expect-no-changes"));
      expect(quiet()).toEqual([]);
    },
  );

  // Skipped only on a machine whose Pulumi CLI has no YAML host (the reason is printed); CI builds it and fails instead.
  it.skipIf(!!NO_YAML)(
    "`export --face plugin` writes a TypeScript project on reviewadmin.plugin.*, whose first up adopts everything with no write",
    { timeout: 300_000 },
    async () => {
      emu.reset();
      const out = await exported(["--face", "plugin"], "access-ts");
      expect(fs.readFileSync(path.join(out, "index.ts"), "utf8")).toContain("new reviewadmin.plugin.OrganizationMembers(");
      expect(fs.readFileSync(path.join(out, "Pulumi.yaml"), "utf8")).toContain("path: ./node_modules/pulumi-reviewadmin/plugin");
      // Installed for real (the YAML project below links to this installation: TypeScript included).
      installFromTarball(out);
      const p = await stackFor("exported-ts", undefined, out);
      const since = writesFrom(emu);
      const up = ok(await p.pulumi("up", "--yes", "--skip-preview"));
      expect(up).toMatch(/reviewadmin:index:OrganizationMembers/);
      expect(up).toMatch(/adopted/);
      expect(since()).toEqual([]);
      ok(await p.pulumi("up", "--yes", "--expect-no-changes"));
      expect(since()).toEqual([]);
    },
  );

  // Skipped only on a machine whose Pulumi CLI has no YAML host (the reason is printed); CI builds it and fails instead.
  it.skipIf(!!NO_YAML)(
    "`export --language yaml` writes a project which, installed from the package tarball, adopts everything on its first up with no write",
    { timeout: 300_000 },
    async () => {
      emu.reset();
      const out = await exported(["--language", "yaml"], "access-yaml");
      // As a user does offline: `npm install` with the package from its tarball (the plugin comes with it).
      installFromTarball(out);
      expect(fs.existsSync(path.join(out, "node_modules/pulumi-reviewadmin/plugin/pulumi-resource-reviewadmin"))).toBe(true);
      const p = await stackFor("exported", undefined, out);
      const since = writesFrom(emu);
      const up = ok(await p.pulumi("up", "--yes", "--skip-preview"));
      expect(up).toMatch(/adopted/);
      expect(since()).toEqual([]);
      ok(await p.pulumi("up", "--yes", "--expect-no-changes"));
      expect(since()).toEqual([]);
    },
  );

  // Skipped only on a machine whose Pulumi CLI has no YAML host (the reason is printed); CI builds it and fails instead.
  it.skipIf(!!NO_YAML)(
    "docs/plugin.md's explicit provider: its resources go to its own base URL with its own key",
    { timeout: 300_000 },
    async () => {
      emu.reset();
      const docs = fs.readFileSync(path.resolve(__dirname, "../../docs/plugin.md"), "utf8");
      const section = docs.slice(docs.indexOf("## Explicit providers"));
      const block = /```yaml\n([\s\S]*?)```/.exec(section)![1]!.replace("https://eu.api.example.com", emu.url);
      const header = fs.readFileSync(EXAMPLE, "utf8");
      const p = await stackFor("explicit", `${header.slice(0, header.indexOf("resources:"))}${block}`);
      ok(await p.pulumi("config", "set", "--secret", "euKey", emu.keys.orgKey!));
      const mark = emu.traffic.log.list().length;
      ok(await p.pulumi("up", "--yes", "--skip-preview"));
      expect(emu.store.invitations.of(ORG).map((i) => i.email)).toContain("ann@northwind.example");
      // Every request of the run came with the explicit provider's key (an organization key), none with the stack's.
      const accounts = new Set(
        emu.traffic.log
          .list()
          .slice(mark)
          .map((e) => e.account),
      );
      expect([...accounts]).toEqual([expect.stringMatching(/^key:/)]);
      // The key is in no file of the state.
      const files = (dir: string): string[] =>
        fs
          .readdirSync(dir, { withFileTypes: true })
          .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
      for (const f of files(path.join(p.dir, ".state"))) expect(fs.readFileSync(f, "utf8").includes(emu.keys.orgKey!), f).toBe(false);
    },
  );
});
