/**
 * The README's "Use it in your own project", followed as a newcomer would, with the real Pulumi
 * CLI at a shell: copy an example into a folder of its own, install this package from a packed
 * tarball (`npm install ./pulumi-reviewadmin-<version>.tgz`), `pulumi stack init`, `pulumi config
 * set` the base URL and the secret key, `npx --no-install pulumi-reviewadmin doctor` (which reads
 * that stack's config), then `pulumi preview` and `pulumi up` (here against the emulator).
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packedTarball, repoRoot } from "../../bench/exportedProject";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { skipWithoutEngine } from "../support/engine";

skipWithoutEngine("test/engine/consumer.test.ts");

let emu: RunningEmulator;
let dir = "";
beforeAll(async () => {
  emu = await startEmulator({ rateLimit: 0 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "my-access-"));
});
afterAll(async () => {
  await emu?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs a command in the project folder, as at a shell, with a local backend's environment. Async:
 * the emulator answers from this process, so a blocking spawn would starve it.
 */
function sh(cmd: string, args: string[]): Promise<{ code: number | null; out: string }> {
  const env = {
    ...process.env,
    PULUMI_BACKEND_URL: `file://${path.join(dir, ".state")}`,
    PULUMI_CONFIG_PASSPHRASE: "my-passphrase",
    REVIEWADMIN_API_KEY: "",
    REVIEWADMIN_BASE_URL: "",
  };
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: path.join(dir, "my-access"), env });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out }));
  });
}

describe("the README's own-project steps", () => {
  it("tarball install, stack config, doctor, preview and up, with the real CLI", async () => {
    const project = path.join(dir, "my-access");
    fs.mkdirSync(path.join(dir, ".state"));
    // "or copy one of examples/ (each is a project of its own)"
    fs.cpSync(path.join(repoRoot, "examples/access-baseline"), project, {
      recursive: true,
      filter: (src) => !/node_modules|Pulumi\.[^/]*\.yaml$/.test(src),
    });
    const tarball = path.join(dir, path.basename(packedTarball()));
    fs.copyFileSync(packedTarball(), tarball);

    const steps: [string, string[]][] = [
      ["npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball]],
      ["pulumi", ["stack", "init", "dev", "--non-interactive"]],
      ["pulumi", ["config", "set", "reviewadmin:baseUrl", emu.url]],
      ["pulumi", ["config", "set", "--secret", "reviewadmin:apiKey", emu.keys.orgAdmin!]],
    ];
    for (const [cmd, args] of steps) {
      const r = await sh(cmd, args);
      expect(r.code, `${cmd} ${args.join(" ")}: ${r.out}`).toBe(0);
    }

    const doctor = await sh("npx", ["--no-install", "pulumi-reviewadmin", "doctor"]);
    expect(doctor.code, doctor.out).toBe(0);
    expect(doctor.out).toContain("stack dev's config, then REVIEWADMIN_* variables");
    expect(doctor.out).toContain("apiKey: stack dev: reviewadmin:apiKey");
    expect(doctor.out).not.toContain(emu.keys.orgAdmin!.split(".")[2]!);

    const preview = await sh("pulumi", ["preview", "--non-interactive"]);
    expect(preview.code, preview.out).toBe(0);
    const up = await sh("pulumi", ["up", "--yes", "--non-interactive"]);
    expect(up.code, up.out).toBe(0);
    expect(up.out).toMatch(/\+ 6 created|6 created/);
    expect(emu.store.findUserByEmail("linus@example.com")).toBeDefined();
    const again = await sh("pulumi", ["up", "--yes", "--non-interactive", "--expect-no-changes"]);
    expect(again.code, again.out).toBe(0);
    // The installed package is the tarball's, not this checkout.
    expect(fs.lstatSync(path.join(project, "node_modules/pulumi-reviewadmin")).isSymbolicLink()).toBe(false);
  }, 600_000);
});
