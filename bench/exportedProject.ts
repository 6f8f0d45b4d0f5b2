/**
 * What the export benchmark and the export tests do with an exported project: give it this
 * repository's node_modules (so `pulumi-reviewadmin` resolves to this checkout through its
 * self-dependency, and `@pulumi/pulumi` to the very copy the harness drives), type-check or
 * compile it with this repository's tsc, and count the write requests a run sent.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { routes } from "../contract/routes";

/** The repository root (this file is bench/ in the sources and dist/bench/ when built). */
export const repoRoot = [path.resolve(__dirname, ".."), path.resolve(__dirname, "../..")].find((d) =>
  fs.existsSync(path.join(d, "package.json")),
)!;

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
  linkDependencies(dir);
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
