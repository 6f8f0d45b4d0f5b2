/**
 * `pulumi-reviewadmin doctor` where it leaves the test's process: the compiled bin
 * (dist/cli/main.js) against the emulator, as a user runs it, and the settings of a stack's config,
 * which the doctor reads with the Pulumi CLI as `pulumi up` reads them. The doctor's findings, run in
 * this process: test/cli/doctor.test.ts.
 */
import { execFile, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { DOCTOR_ENV as ENV, section } from "../cli/doctorReport";
import { runCli } from "../cli/runCli";
import { noEngine } from "../support/engine";

const repoRoot = path.resolve(__dirname, "../..");
let emu: RunningEmulator;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu?.close();
});

const keyId = (name: string) => emu.keys[name]!.split(".")[1]!;

describe("doctor, compiled", () => {
  it("the compiled bin, as a user runs it", async () => {
    // Asynchronously: the emulator answering it lives in this process.
    const r = await new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
      const env = {
        ...process.env,
        REVIEWADMIN_API_KEY: emu.keys.orgKey!,
        REVIEWADMIN_BASE_URL: emu.url,
        REVIEWADMIN_REQUESTS_PER_SECOND: "",
      };
      execFile(process.execPath, [path.join(repoRoot, "dist/cli/main.js"), "doctor"], { encoding: "utf8", env }, (err, stdout, stderr) =>
        resolve({ status: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr }),
      );
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\nOK: ready to use \(1 warning\)\n$/);
    expect(r.stdout).not.toContain(emu.keys.orgKey!);
    const help = spawnSync(process.execPath, [path.join(repoRoot, "dist/cli/main.js"), "doctor", "--help"], { encoding: "utf8" });
    expect(help.stdout).toMatch(/^Usage: pulumi-reviewadmin doctor \[options\]\n/);
    expect(help.stdout).toContain("--custodians-only");
  });
});

describe("doctor: a stack's config, as pulumi up reads it", () => {
  // Needs the Pulumi CLI (the engine tests' CLI); test/support/engine.ts says why it would skip.
  let dir = "";
  const saved = { ...process.env };
  beforeAll(() => {
    if (noEngine) return;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "doctor-stack-"));
    fs.mkdirSync(path.join(dir, "backend"));
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: doctor-check\nruntime: nodejs\n");
    Object.assign(process.env, { PULUMI_BACKEND_URL: `file://${path.join(dir, "backend")}`, PULUMI_CONFIG_PASSPHRASE: "doctor-test" });
    for (const k of ENV) delete process.env[k];
    const pulumi = (...args: string[]) => {
      const r = spawnSync("pulumi", [...args, "--non-interactive"], { cwd: dir, encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
    };
    pulumi("stack", "init", "prod");
    pulumi("config", "set", "--secret", "reviewadmin:apiKey", emu.keys.orgAdmin!);
    pulumi("config", "set", "reviewadmin:baseUrl", emu.url);
  });
  afterAll(() => {
    process.env = { ...saved };
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  // Reading a stack's config needs the Pulumi CLI; without it (no Go to build it) these two skip,
  // and test/support/engine.ts says why and how to get it (CI requires the CLI and never skips).
  it.skipIf(!!noEngine)("reads the selected stack's reviewadmin:* config and says where each setting came from", async () => {
    const r = await runCli(["doctor", "--cwd", dir]);
    expect(r.code, r.out + r.err).toBe(0);
    expect(section(r.out, "settings")).toBe(
      [
        "settings      stack prod's config, then REVIEWADMIN_* variables",
        "apiKey: stack prod: reviewadmin:apiKey",
        "baseUrl: stack prod: reviewadmin:baseUrl",
      ].join("\n"),
    );
    expect(section(r.out, "key")).toBe(`key           ${keyId("orgAdmin")} (the key id; the rest of the key is never shown)`);
    expect(r.out).not.toContain(emu.keys.orgAdmin!.split(".")[2]!);
    const json = JSON.parse((await runCli(["doctor", "--cwd", dir, "--stack", "prod", "--json"])).out);
    expect(json.stack).toEqual({ name: "prod" });
    expect(json.settingsFrom).toEqual({ apiKey: "stack prod: reviewadmin:apiKey", baseUrl: "stack prod: reviewadmin:baseUrl" });
  });

  it.skipIf(!!noEngine)("a stack that does not exist is a usage error; --env reads the environment only", async () => {
    const missing = await runCli(["doctor", "--cwd", dir, "--stack", "nope"]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^pulumi-reviewadmin doctor: --stack nope: pulumi: .*nope/);
    const envOnly = await runCli(["doctor", "--cwd", dir, "--env"]);
    expect(envOnly.code).toBe(1);
    expect(envOnly.out).toMatch(/no API key is set \(REVIEWADMIN_API_KEY\)/);
  });
});
