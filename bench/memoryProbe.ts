/**
 * Loaded into a process with `NODE_OPTIONS=--require <this file>` (the export benchmark does so for
 * the dynamic-provider plugin, which the harness spawns): every 100 ms, and once on load, writes
 * the process's peak resident memory so far (maxRSS, in bytes) to `<dir>/<pid>`, where `dir` is
 * REVIEWADMIN_MEMORY_PROBE_DIR. The harness kills the plugin at the end of a run, so no exit hook
 * would run: the last write is at most 100 ms old, and maxRSS only grows.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** The environment variable naming the folder the probe writes to. */
export const MEMORY_PROBE_DIR = "REVIEWADMIN_MEMORY_PROBE_DIR";

const dir = process.env[MEMORY_PROBE_DIR];
if (dir) {
  const file = path.join(dir, String(process.pid));
  const write = () => {
    try {
      // maxRSS is in kilobytes on Linux.
      fs.writeFileSync(file, String(process.resourceUsage().maxRSS * 1024));
    } catch {
      // The folder was removed: the measurement is over.
    }
  };
  write();
  setInterval(write, 100).unref();
}

/**
 * The largest peak written to `dir` by files changed since `sinceMs` (a Date.now() value), i.e. by
 * the processes alive during a phase; 0 when none.
 */
export function peakSince(dir: string, sinceMs: number): number {
  let peak = 0;
  for (const name of fs.readdirSync(dir)) {
    const file = path.join(dir, name);
    if (fs.statSync(file).mtimeMs < sinceMs) continue;
    peak = Math.max(peak, Number(fs.readFileSync(file, "utf8")) || 0);
  }
  return peak;
}
