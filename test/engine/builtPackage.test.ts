/**
 * The built package (dist/, which the engine tier's global setup builds) as a user runs it, each
 * in a child process: the `pulumi-reviewadmin` bin and its emulator command (started, serving,
 * stopped on SIGINT with exit code 0); the package's entry points, the emulator command and the
 * demo on a Node older than the package needs (the one line saying which Node it needs); and what
 * a program loads with the package. The same commands run in the test's process:
 * test/cli/main.test.ts, test/emulator/cli.test.ts; the cost of registering a resource:
 * test/resources/registrationStacks.test.ts.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { nodeProblem } from "../../contract/nodeVersion";

const repoRoot = path.resolve(__dirname, "../..");

describe("pulumi-reviewadmin, compiled", () => {
  // The machine's own Node, when it is older than the package needs (a fresh machine of ours has
  // 20.20), else this Node made to say it is 20.20.2 (a preload), so the check runs either way.
  const oldNode = ((): { bin: string; args: string[] } => {
    for (const bin of ["/usr/bin/node", "/usr/local/bin/node"]) {
      const v = spawnSync(bin, ["-p", "process.versions.node"], { encoding: "utf8" });
      if (v.status === 0 && nodeProblem(v.stdout.trim())) return { bin, args: [] };
    }
    const preload = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "old-node-")), "preload.js");
    fs.writeFileSync(preload, 'Object.defineProperty(process, "versions", { value: { ...process.versions, node: "20.20.2" } });\n');
    return { bin: process.execPath, args: ["--require", preload] };
  })();

  it.each(["dist/provider/index.js", "dist/provider/runtime.js", "dist/emulator/index.js"])(
    "importing %s on an old Node fails with the one line saying which Node it needs",
    (entry) => {
      const r = spawnSync(oldNode.bin, [...oldNode.args, "-e", `require(${JSON.stringify(path.join(repoRoot, entry))})`], {
        encoding: "utf8",
      });
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/Error: pulumi-reviewadmin needs Node 22\.19 or newer \(Node 24 recommended\); this is Node 20\.\d+\.\d+\./);
      expect(r.stderr).not.toMatch(/undici|TypeError/);
    },
  );

  it("the compiled bin runs as a user runs it", () => {
    const r = spawnSync(process.execPath, [path.join(repoRoot, "dist/cli/main.js"), "routes"], { encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout.split("\n").filter(Boolean)).toHaveLength(35);
  });
});

describe("the emulator command and the demo, compiled", () => {
  /** Runs a compiled entry with Node pretending to be `version`: only the version check should speak. */
  function onOldNode(script: string, args: string[], version = "20.20.2") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "old-node-"));
    const fake = path.join(dir, "fake.js");
    fs.writeFileSync(fake, `Object.defineProperty(process.versions, "node", { value: ${JSON.stringify(version)} });\n`);
    try {
      return spawnSync(process.execPath, ["-r", fake, path.join(repoRoot, script), ...args], { encoding: "utf8", timeout: 30_000 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  it("the emulator command and the demo say in one line which Node they need", () => {
    for (const [script, args] of [
      ["dist/cli/main.js", ["emulator"]],
      ["dist/demo/index.js", []],
    ] as const) {
      const r = onOldNode(script, [...args]);
      expect(r.status, script).toBe(1);
      expect(r.stdout, script).toBe("");
      expect(r.stderr, script).toBe(
        "pulumi-reviewadmin needs Node 22.19 or newer (Node 24 recommended); this is Node 20.20.2. Install one from https://nodejs.org or with your version manager (nvm install 24).\n",
      );
    }
  });

  it("the compiled command starts, serves, and stops on SIGINT with exit code 0", async () => {
    const child = spawn(process.execPath, [path.join(repoRoot, "dist/cli/main.js"), "emulator", "--port=0"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 20_000);
        child.stdout.on("data", () => {
          const m = /API base URL: +(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m && out.includes("Press Ctrl-C")) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        });
      });
      const logged = new Promise<void>((resolve) => {
        const seen = () => / GET \/_emulator\/health 200 /.test(out) && resolve();
        child.stdout.on("data", seen);
      });
      expect((await fetch(`${url}/_emulator/health`)).status).toBe(200);
      // The request line is written after the answer: wait for it, not for a guessed time.
      await logged;
      expect(out).toMatch(/ GET \/_emulator\/health 200 /);
    } finally {
      child.kill("SIGINT");
    }
    expect(await exited).toBe(0);
  });
});

describe("what a program loads with the package", () => {
  // @pulumi/pulumi's index also loads its Automation API and, through closure serialization,
  // TypeScript: 0.6 s of a program's start before its first resource reaches the engine. The
  // package takes each value from the SDK's own module (eslint keeps it so); counted, not timed.
  // undici (0.13 s) waits for the first request, in the program and in the plugin (runtime.js).
  it("loads neither TypeScript nor the Automation API nor the SDK's index, nor undici before a request", () => {
    const dist = path.join(repoRoot, "dist/provider");
    const script = `const count = () => { const loaded = Object.keys(require.cache);
        return ["/node_modules/typescript/", "/@pulumi/pulumi/automation/", "/@pulumi/pulumi/index.js", "/@pulumi/pulumi/resource.js", "/node_modules/undici/"]
          .map((part) => loaded.filter((f) => f.includes(part)).length); };
      require(${JSON.stringify(path.join(dist, "index.js"))});
      require(${JSON.stringify(path.join(dist, "runtime.js"))});
      // A no-change run's diff makes a client and sends nothing.
      const { ReviewAdminClient } = require(${JSON.stringify(path.join(dist, "client/client.js"))});
      new ReviewAdminClient({ baseUrl: "http://127.0.0.1:9", apiKey: "ra_test_${"k".repeat(32)}" });
      const before = count();
      require(${JSON.stringify(path.join(dist, "client/transport.js"))}).acquirePool("http://127.0.0.1:9");
      console.log(JSON.stringify({ before, after: count() }));`;
    const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    const { before, after } = JSON.parse(r.stdout) as { before: number[]; after: number[] };
    const [typescript, automation, index, resource, undici] = before;
    expect({ typescript, automation, index, undici }).toEqual({ typescript: 0, automation: 0, index: 0, undici: 0 });
    // The counts are real: the SDK's resource module is loaded, and undici once a pool is made.
    expect(resource).toBe(1);
    expect(after[4]).toBeGreaterThan(0);
  });
});
