/**
 * Where an engine step's time goes (issue 57, `npm run bench -- --only profile [--enterprise |
 * --people N]`): the exported program's steps under the real engine, each with the engine's CPU
 * profile (`pulumi --profiling`) and a CPU profile of every Node.js process it starts (the program,
 * the dynamic-provider plugin, the policy pack; cpuProfileHook.ts), read into CPU time by whose code
 * spent it (cpuProfiles.ts): the engine's (its checkpoint writes apart), ours, the Pulumi SDK's,
 * TypeScript's. The first up runs twice, the second time on a stack of its own with
 * PULUMI_SKIP_CHECKPOINTS=true, so the checkpoints' share is measured as wall time too.
 *
 * Profiling costs time itself (sampling every millisecond): the wall times here are the profiled
 * runs'; the headline figures are bench/results/enterprise*.md's.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { runAsync } from "../harness/runAsync";
import { pulumiVersion } from "../harness/pulumiCli";
import { startEmulatorThread } from "./emulatorThread";
import { CPU_KINDS, readEngineProfile, readNodeProfiles, type CpuKind, type EngineCpu, type ProcessCpu } from "./cpuProfiles";
import { trafficOf, type Timeline } from "./export";
import { installFromTarball, repoRoot, tsc, writesIn } from "./exportedProject";
import { ENTERPRISE_WORLD, exportedWorld } from "./exportWorld";
import { RATE } from "./rateFloors";
import type { ScaleWorld } from "./scaleWorld";

/** One profiled step. */
export interface ProfiledStep {
  step: string;
  command: string;
  requests: number;
  writeCount: number;
  wallMs: number;
  /** Its requests at the service's rate. */
  rateFloorMs: number;
  timeline?: Timeline;
  engine?: EngineCpu;
  processes: ProcessCpu[];
}

/** What the profile benchmark measured. */
export interface ProfileResult {
  world: ScaleWorld & { organizationMembers: number; databases: number; resources: number };
  pulumiVersion: string;
  steps: ProfiledStep[];
  checkpointBytes: number;
  loadAverage: { start: string; end: string };
  totalWallMs: number;
}

const PASSPHRASE = "profile";
const PACK = "node_modules/pulumi-reviewadmin/policy";
const common = ["--non-interactive", "--color", "never"];
/** drift.yml's command: a refreshed preview that fails on any change, with the policy pack. */
const DRIFT = ["preview", "--refresh", "--expect-no-changes", "--diff", "--policy-pack", PACK, "--suppress-outputs", "--stack", "prod"];

/** Runs the profiled steps on `world` (default: the enterprise world, 28,007 people). */
export async function benchProfile(opts: { world?: ScaleWorld; log?: (line: string) => void } = {}): Promise<ProfileResult> {
  const world = opts.world ?? ENTERPRISE_WORLD;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const t0 = performance.now();
  const load = () =>
    os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" ");
  const loadAtStart = load();
  log(`profile: seeding ${world.members} members, ${world.databases} databases x ${world.usersPerDatabase} users`);
  const emu = await startEmulatorThread({ rateLimit: RATE, scale: world });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-bench-profile-"));
  const access = path.join(root, "access");
  const profiles = path.join(root, "profiles");
  fs.mkdirSync(path.join(root, "state"));
  fs.mkdirSync(profiles);
  const env = {
    PULUMI_BACKEND_URL: `file://${path.join(root, "state")}`,
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    REVIEWADMIN_API_KEY: emu.keys.orgAdmin!,
    REVIEWADMIN_BASE_URL: emu.url,
  };
  const hook = path.join(repoRoot, "dist", "bench", "cpuProfileHook.js");
  const steps: ProfiledStep[] = [];
  try {
    const seeded = exportedWorld(await emu.control("GET", "/state"));
    const exported = await runAsync(
      process.execPath,
      [path.join(repoRoot, "dist", "cli", "main.js"), "export", "--out", access, "--quiet"],
      {
        env,
      },
    );
    if (exported.code !== 0) throw new Error(`export failed: ${exported.stderr}`);
    log("profile: installing the exported project's dependencies and compiling it with tsc...");
    installFromTarball(access);
    const compiled = tsc(access, { emit: true });
    if (!compiled.ok) throw new Error(`the exported project does not compile:\n${compiled.output}`);
    const pulumiYaml = path.join(access, "Pulumi.yaml");
    const asExported = fs.readFileSync(pulumiYaml, "utf8");
    /** The program the CLI runs: the compiled JavaScript, or index.ts as exported (through ts-node, type-checked). */
    const useMain = (main: "bin/index.js" | "index.ts") => fs.writeFileSync(pulumiYaml, asExported.replace(/^main: .*$/m, `main: ${main}`));
    for (const stack of ["prod", "skip"]) {
      for (const args of [
        ["stack", "init", stack],
        ["config", "set", "reviewadmin:baseUrl", emu.url, "--stack", stack],
      ]) {
        const r = await runAsync("pulumi", [...args, "--non-interactive"], { cwd: access, env });
        if (r.code !== 0) throw new Error(`pulumi ${args.join(" ")} failed: ${r.stderr}`);
      }
    }

    const step = async (name: string, args: string[], extraEnv: Record<string, string> = {}) => {
      log(`profile: ${name}...`);
      const id = `step${steps.length}`;
      const nodeDir = path.join(profiles, id);
      fs.mkdirSync(nodeDir);
      await emu.control("DELETE", "/requests");
      const startedAt = Date.now();
      const s0 = performance.now();
      const r = await runAsync("pulumi", [...args, ...common, "--profiling", path.join(profiles, id)], {
        cwd: access,
        env: { ...env, ...extraEnv, PROFILE_DIR: nodeDir, NODE_OPTIONS: `--require ${hook}` },
      });
      const wallMs = Math.round(performance.now() - s0);
      if (r.code !== 0)
        throw new Error(`${name} failed (exit ${r.code}): ${`${r.stdout}${r.stderr}`.trim().split("\n").slice(-6).join(" | ")}`);
      const { counters, timeline } = await trafficOf(emu, startedAt, wallMs);
      const engine = readEngineProfile(profiles, id);
      const out: ProfiledStep = {
        step: name,
        command: `${Object.entries(extraEnv)
          .map(([k, v]) => `${k}=${v} `)
          .join("")}pulumi ${args.join(" ")}`,
        requests: counters.total,
        writeCount: Object.values(writesIn(counters.byOperation)).reduce((a, b) => a + b, 0),
        wallMs,
        rateFloorMs: Math.round((counters.total / RATE) * 1000),
        ...(timeline ? { timeline } : {}),
        ...(engine ? { engine } : {}),
        processes: readNodeProfiles(nodeDir),
      };
      steps.push(out);
      log(`profile: ${name}: ${out.requests} requests, ${out.writeCount} writes, ${(wallMs / 1000).toFixed(1)} s`);
    };

    useMain("bin/index.js");
    await step("first up (adopts)", ["up", "--yes", "--skip-preview", "--stack", "prod"]);
    await step("first up, without checkpoints (a stack of its own)", ["up", "--yes", "--skip-preview", "--stack", "skip"], {
      PULUMI_SKIP_CHECKPOINTS: "true",
    });
    await step("no-change up", ["up", "--yes", "--skip-preview", "--expect-no-changes", "--stack", "prod"]);
    await step("no-change preview --diff", ["preview", "--diff", "--expect-no-changes", "--stack", "prod"]);
    await step("refresh", ["refresh", "--yes", "--skip-preview", "--stack", "prod"]);
    useMain("index.ts");
    await step("drift job as 0.3.0's drift.yml ran it (index.ts through ts-node, type-checked in every run)", DRIFT);
    await step("drift job as drift.yml runs it (index.ts transpiled only: PULUMI_NODEJS_TRANSPILE_ONLY)", DRIFT, {
      PULUMI_NODEJS_TRANSPILE_ONLY: "true",
    });
    useMain("bin/index.js");
    await step("the same drift job, its program compiled beforehand (bin/index.js)", DRIFT);
    const checkpoint = path.join(root, "state", ".pulumi", "stacks", "access", "prod.json");
    return {
      world: {
        ...world,
        organizationMembers: seeded.organizationMembers,
        databases: seeded.databases.length,
        resources: seeded.organizationIds.length + seeded.databases.length,
      },
      pulumiVersion: pulumiVersion() ?? "(unknown)",
      steps,
      checkpointBytes: fs.existsSync(checkpoint) ? fs.statSync(checkpoint).size : 0,
      loadAverage: { start: loadAtStart, end: load() },
      totalWallMs: Math.round(performance.now() - t0),
    };
  } finally {
    await emu.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const cpuOf = (p: ProcessCpu[], role: ProcessCpu["role"], kinds: readonly CpuKind[]) =>
  p.filter((x) => x.role === role).reduce((n, x) => n + kinds.reduce((m, k) => m + x.cpuMs[k], 0), 0);

/** The profile benchmark's tables. */
export function profileMarkdown(r: ProfileResult): string {
  const w = r.world;
  const cell = (ms: number) => (ms >= 50 ? s(ms) : "-");
  const rows = r.steps.map((x) => {
    const engine = x.engine ? `${s(x.engine.totalMs)} | ${s(x.engine.checkpointMs)}` : "not read (no Go) | -";
    const kinds = (role: ProcessCpu["role"]) =>
      [["ours"], ["sdk"], ["typescript", "modules"], ["gc", "other"]]
        .map((k) => cell(cpuOf(x.processes, role, k as CpuKind[])))
        .join(" | ");
    return `| ${x.step} | ${x.requests} | ${s(x.wallMs)} | ${s(x.rateFloorMs)} | ${engine} | ${kinds("program")} | ${kinds("plugin")} | ${cell(cpuOf(x.processes, "policy pack", CPU_KINDS))} |`;
  });
  const tops = r.steps.flatMap((x) =>
    x.processes
      .filter((p) => p.role !== "other")
      .map((p) => `- ${x.step}, ${p.role}: ${p.top.map((t) => `\`${t.fn}\` ${s(t.ms)}`).join("; ")}`),
  );
  return [
    `### Where the time goes: ${w.organizationMembers.toLocaleString("en-US")} memberships, ${w.databases} databases (${w.resources} resources), profiled`,
    "",
    `Pulumi CLI ${r.pulumiVersion}, a file:// backend (checkpoint ${(r.checkpointBytes / 1024 / 1024).toFixed(1)} MiB); the emulator in a worker thread and every client at ${RATE} requests/s. Each step at a shell with \`pulumi --profiling\` (the engine's CPU, read with \`go tool pprof\`; "checkpoint writes": its SnapshotManager's saveSnapshot, the whole state serialized and written before and after each step) and every Node.js process it starts profiled (bench/cpuProfileHook.ts). CPU seconds by whose code spent them; idle time left out. Wall times are the profiled runs' (sampling costs time).`,
    "",
    "| step | requests | wall | rate floor | engine CPU | of it, checkpoint writes | program: ours | program: SDK, gRPC | program: TypeScript, loading modules | program: GC, rest | plugin: ours | plugin: SDK, gRPC | plugin: TypeScript, loading modules | plugin: GC, rest | policy pack |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows,
    "",
    "The functions that spent the most CPU in each process (self time):",
    "",
    ...tops,
    "",
    `- Commands (in the exported project's folder): ${r.steps.map((x) => `\`${x.command}\``).join("; ")}.`,
    `- Load average (1/5/15 min) at the start: ${r.loadAverage.start}; at the end: ${r.loadAverage.end}, on ${os.cpus().length} CPUs.`,
  ].join("\n");
}
