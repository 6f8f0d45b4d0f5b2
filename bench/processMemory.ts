/**
 * Peak resident memory of the processes a run under the real engine starts: the Pulumi CLI
 * (`pulumi`, the engine itself) and the dynamic-provider plugin (a node process running
 * `cmd/dynamic-provider`). Every 200 ms it reads VmHWM (the kernel's peak RSS of a process) of
 * every descendant of this process from /proc; VmHWM only grows, so a process that exits between
 * two reads loses at most its last 200 ms. Linux only; elsewhere it reports 0.
 */
import * as fs from "node:fs";

/** Peaks in bytes, by role. */
export interface ProcessPeaks {
  cli: number;
  plugin: number;
}

function read(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** Every descendant pid of `root`, from /proc/<pid>/stat's parent field. */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = read(`/proc/${name}/stat`);
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = stat ? Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) : NaN;
    if (!Number.isNaN(ppid)) parent.set(Number(name), ppid);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    const p = queue.pop()!;
    for (const [child, pp] of parent) {
      if (pp !== p) continue;
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/** The kernel's peak resident memory of `pid` (VmHWM) in bytes; 0 when it is gone or there is no /proc. */
export function peakRssOf(pid: number): number {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(read(`/proc/${pid}/status`) ?? "");
  return hwm ? Number(hwm[1]) * 1024 : 0;
}

function roleOf(pid: number): keyof ProcessPeaks | undefined {
  const cmdline = read(`/proc/${pid}/cmdline`)?.split("\0") ?? [];
  if (cmdline.some((a) => a.includes("cmd/dynamic-provider"))) return "plugin";
  if (cmdline[0] && /(^|\/)pulumi$/.test(cmdline[0])) return "cli";
  return undefined;
}

/** Starts sampling; `stop()` returns the peaks seen since. */
export function sampleProcessMemory(intervalMs = 200): { stop(): ProcessPeaks } {
  const peaks: ProcessPeaks = { cli: 0, plugin: 0 };
  if (!fs.existsSync("/proc/self/status")) return { stop: () => peaks };
  const sample = () => {
    for (const pid of descendants(process.pid)) {
      const role = roleOf(pid);
      if (!role) continue;
      peaks[role] = Math.max(peaks[role], peakRssOf(pid));
    }
  };
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { ...peaks };
    },
  };
}
