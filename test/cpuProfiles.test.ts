/**
 * The profile benchmark's reading of a Node.js CPU profile (bench/cpuProfiles.ts): CPU time by
 * whose code spent it, a built-in counted as its caller's, idle time and the profiler's own left out.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readNodeProfiles } from "../bench/cpuProfiles";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-cpu-profiles-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url, lineNumber: 1 },
  children,
});

describe("readNodeProfiles", () => {
  it("counts each sample by whose code ran it, across a process's chunks, and names the process by its command line", () => {
    const nodes = [
      frame(1, "(root)", "", [2, 5, 7, 8, 9, 10]),
      frame(2, "packAs", "/x/node_modules/pulumi-reviewadmin/dist/contract/packed.js", [3]),
      frame(3, "stringify", "", [4]),
      frame(4, "", ""),
      frame(5, "serializeProperty", "/x/node_modules/@pulumi/pulumi/runtime/rpc.js", [6]),
      frame(6, "stringify", ""),
      frame(7, "(idle)", ""),
      frame(8, "post", "node:inspector"),
      frame(9, "(garbage collector)", ""),
      frame(10, "wrapSafe", "node:internal/modules/cjs/loader"),
    ];
    // 20 ms a sample: 2 in our code, 3 built-ins ours called, 2 in the SDK's, 4 idle, 5 profiling, 1 GC, 1 loading.
    const chunk = (samples: number[]) => JSON.stringify({ nodes, samples, timeDeltas: samples.map(() => 20_000) });
    fs.writeFileSync(path.join(dir, "42-0000.cpuprofile"), chunk([2, 2, 3, 4, 4, 5, 6, 7, 7]));
    fs.writeFileSync(path.join(dir, "42-0001.cpuprofile"), chunk([7, 7, 8, 8, 8, 8, 8, 9, 10]));
    fs.writeFileSync(path.join(dir, "42.argv"), "node /x/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js 127.0.0.1:1");
    const [plugin] = readNodeProfiles(dir);
    expect(plugin).toMatchObject({ role: "plugin", pid: 42, cpuMs: { ours: 100, sdk: 40, gc: 20, modules: 20, typescript: 0, other: 0 } });
    expect(plugin!.top).toContainEqual({ fn: "packAs contract/packed.js", ms: 40 });
  });
});
