/**
 * What the export benchmark and the export tests do with an exported project: install its
 * dependencies as a user would, with this checkout packed as the package (installFromTarball),
 * type-check or compile it with this repository's tsc, and count the write requests a run sent.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { routes } from "../contract/routes";

/** The repository root (this file is bench/ in the sources and dist/bench/ when built). */
export const repoRoot = [path.resolve(__dirname, ".."), path.resolve(__dirname, "../..")].find((d) =>
  fs.existsSync(path.join(d, "package.json")),
)!;

let packed: string | undefined;

/**
 * This checkout packed as users get it (`npm pack` of the built dist/, without running the build
 * again), once per process; returns the tarball's path.
 */
export function packedTarball(): string {
  if (packed && fs.existsSync(packed)) return packed;
  const dest = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-pack-"));
  const r = spawnSync("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", dest], { cwd: repoRoot, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`npm pack failed: ${r.stderr}`);
  const file = fs.readdirSync(dest).find((f) => f.endsWith(".tgz"));
  if (!file) throw new Error(`npm pack wrote no tarball in ${dest}`);
  return (packed = path.join(dest, file));
}

let installed: string | undefined;

/**
 * Gives the exported project in `dir` what `npm install` gives a user: its package.json's
 * dependencies from the registry, with pulumi-reviewadmin from the packed tarball. The first
 * project of a process is installed for real; later ones get a link to that installation (the same
 * package.json, so the same tree) instead of another minute of npm.
 */
export function installFromTarball(dir: string): { wallMs: number; linked: boolean } {
  const t0 = performance.now();
  const link = path.join(dir, "node_modules");
  if (installed && fs.existsSync(installed)) {
    if (!fs.existsSync(link)) fs.symlinkSync(installed, link, "dir");
    return { wallMs: Math.round(performance.now() - t0), linked: true };
  }
  const r = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--silent", packedTarball()], {
    cwd: dir,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`npm install of the packed package in ${dir} failed: ${r.stderr}`);
  installed = link;
  return { wallMs: Math.round(performance.now() - t0), linked: false };
}

/** Makes `<dir>/node_modules` a link to this repository's, unless it has one. */
export function linkDependencies(dir: string): void {
  const link = path.join(dir, "node_modules");
  if (!fs.existsSync(link)) fs.symlinkSync(path.join(repoRoot, "node_modules"), link, "dir");
}

/** What tsc said about a project. */
export interface TscResult {
  ok: boolean;
  /** tsc's output (the errors), empty when ok. */
  output: string;
  wallMs: number;
}

/**
 * Runs this repository's tsc on `<dir>/tsconfig.json`: `--noEmit` by default, or compiling to the
 * project's outDir with `emit` (the benchmark runs the compiled JavaScript in plain Node).
 */
export function tsc(dir: string, opts: { emit?: boolean } = {}): TscResult {
  installFromTarball(dir);
  const bin = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc");
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [bin, "-p", path.join(dir, "tsconfig.json"), ...(opts.emit ? [] : ["--noEmit"])], {
    encoding: "utf8",
  });
  return { ok: r.status === 0, output: `${r.stdout ?? ""}${r.stderr ?? ""}`.trim(), wallMs: Math.round(performance.now() - t0) };
}

/** Operation ids that change something in the service (every method but GET). */
export const WRITE_OPERATIONS: ReadonlySet<string> = new Set(
  Object.values(routes)
    .filter((r) => r.method !== "GET")
    .map((r) => r.operationId),
);

/** Write requests in the emulator's counters (`traffic.log.counters.byOperation`), by operation; empty when none. */
export function writesIn(byOperation: Record<string, { total: number }>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(byOperation)
      .filter(([op]) => WRITE_OPERATIONS.has(op))
      .map(([op, c]) => [op, c.total]),
  );
}
