/**
 * Reads what a profiled step left (bench/profile.ts): the Node.js processes' CPU profiles written
 * by cpuProfileHook.ts, and the engine's Go CPU profile (`pulumi --profiling`), into CPU time by
 * whose code spent it: ours, the Pulumi SDK (with gRPC and protobuf), TypeScript, loading modules,
 * garbage collection, the rest; and the engine's, with its checkpoint writes apart.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/** Whose code spent CPU time in a Node.js process. */
export const CPU_KINDS = ["ours", "sdk", "typescript", "modules", "gc", "other"] as const;
/** One of {@link CPU_KINDS}. */
export type CpuKind = (typeof CPU_KINDS)[number];

/** One Node.js process of a step: its role and its CPU time (ms) by kind; idle time and the profiler's own left out. */
export interface ProcessCpu {
  role: "program" | "plugin" | "policy pack" | "other";
  pid: number;
  cpuMs: Record<CpuKind, number>;
  /** The functions that spent the most (self time, ms), ours or not. */
  top: { fn: string; ms: number }[];
}

/** The engine's CPU (ms): all of it, and what its checkpoint writes took (SnapshotManager's saveSnapshot). */
export interface EngineCpu {
  totalMs: number;
  checkpointMs: number;
}

/** Built-ins that load code: compiling and reading modules. */
const MODULE_LOADING = new Set([
  "wrapSafe",
  "compileFunction",
  "readFileUtf8",
  "internalModuleStat",
  "realpathSync",
  "compileForInternalLoader",
]);

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** The kind of a frame by its own function and file; undefined for a built-in with no file (JSON.stringify, zlib). */
function ownKind(fn: string, url: string): CpuKind | "idle" | undefined {
  // The profiler's own work (cpuProfileHook.ts stopping and writing a profile) is left out, as idle is.
  if (fn === "(idle)" || (fn === "post" && url === "node:inspector")) return "idle";
  if (fn === "(garbage collector)") return "gc";
  if (MODULE_LOADING.has(fn)) return "modules";
  if (/[\\/]pulumi-reviewadmin[\\/]|[\\/]dist[\\/](provider|contract|policy)[\\/]/.test(url)) return "ours";
  if (/@pulumi[\\/](pulumi|policy)|@grpc|google-protobuf/.test(url)) return "sdk";
  if (/[\\/]typescript[\\/]|ts-node/.test(url)) return "typescript";
  return url === "" && !fn.startsWith("(") ? undefined : "other";
}

/** Each node's kind: a built-in with no file counts as its caller's (our JSON.stringify is ours). */
function kindsOf(p: Profile): Map<number, CpuKind | "idle"> {
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const kinds = new Map<number, CpuKind | "idle">();
  const kindOf = (id: number): CpuKind | "idle" => {
    const known = kinds.get(id);
    if (known) return known;
    const cf = byId.get(id)!.callFrame;
    const up = parent.get(id);
    const kind = ownKind(cf.functionName, cf.url) ?? (up === undefined ? "other" : kindOf(up));
    kinds.set(id, kind);
    return kind;
  };
  for (const n of p.nodes) kindOf(n.id);
  return kinds;
}

function roleOf(argv: string): ProcessCpu["role"] {
  if (/dynamic-provider/.test(argv)) return "plugin";
  if (/--monitor/.test(argv)) return "program";
  if (/policy|analyzer/.test(argv)) return "policy pack";
  return "other";
}

/** The Node.js processes profiled into `dir`, each with its CPU time by kind (processes under 100 ms left out). */
export function readNodeProfiles(dir: string): ProcessCpu[] {
  const files = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  const pids = [...new Set(files.filter((f) => f.endsWith(".cpuprofile")).map((f) => Number(f.split("-")[0])))];
  const out: ProcessCpu[] = [];
  for (const pid of pids) {
    const argvFile = path.join(dir, `${pid}.argv`);
    const cpuMs = Object.fromEntries(CPU_KINDS.map((k) => [k, 0])) as Record<CpuKind, number>;
    const byFn = new Map<string, number>();
    for (const f of files.filter((f) => f.startsWith(`${pid}-`))) {
      const p = JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as Profile;
      const frames = new Map(p.nodes.map((n) => [n.id, n.callFrame]));
      const kinds = kindsOf(p);
      p.samples.forEach((id, i) => {
        const cf = frames.get(id)!;
        const kind = kinds.get(id)!;
        if (kind === "idle") return;
        const ms = (p.timeDeltas[i] ?? 0) / 1000;
        cpuMs[kind] += ms;
        const fn =
          `${cf.functionName || "(anonymous)"} ${cf.url.replace(/^.*node_modules[\\/]/, "").replace(/^.*[\\/]dist[\\/]/, "")}`.trim();
        byFn.set(fn, (byFn.get(fn) ?? 0) + ms);
      });
    }
    const total = Object.values(cpuMs).reduce((a, b) => a + b, 0);
    if (total < 100) continue;
    const top = [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 8);
    out.push({
      role: roleOf(fs.existsSync(argvFile) ? fs.readFileSync(argvFile, "utf8") : ""),
      pid,
      cpuMs,
      top: top.map(([fn, ms]) => ({ fn, ms: Math.round(ms) })),
    });
  }
  return out.sort((a, b) => a.role.localeCompare(b.role));
}

/** Seconds in pprof's units ("15.68s", "120ms") as ms. */
function msOf(text: string): number {
  const m = /^([\d.]+)(ms|s|us|µs|min|h)?$/.exec(text);
  if (!m) return 0;
  const scale: Record<string, number> = { ms: 1, s: 1000, us: 0.001, µs: 0.001, min: 60_000, h: 3_600_000 };
  return Number(m[1]) * (scale[m[2] ?? "s"] ?? 1000);
}

/**
 * The engine's CPU from the `pulumi --profiling <prefix>` files in `dir` (read with `go tool
 * pprof`); undefined where there is no profile or no Go to read it.
 */
export function readEngineProfile(dir: string, prefix: string): EngineCpu | undefined {
  const cpu = fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.startsWith(`${prefix}.`) && f.endsWith(".cpu")) : undefined;
  if (!cpu) return undefined;
  const r = spawnSync("go", ["tool", "pprof", "-top", "-cum", "-nodecount=2000", path.join(dir, cpu)], { encoding: "utf8" });
  if (r.status !== 0) return undefined;
  const total = /Total samples = (\S+)/.exec(r.stdout);
  let checkpointMs = 0;
  for (const line of r.stdout.split("\n")) {
    const cols = line.trim().split(/\s+/);
    if (cols.length >= 6 && /\.saveSnapshot$/.test(cols[cols.length - 1]!)) checkpointMs = Math.max(checkpointMs, msOf(cols[3]!));
  }
  return { totalMs: total ? msOf(total[1]!) : 0, checkpointMs };
}
