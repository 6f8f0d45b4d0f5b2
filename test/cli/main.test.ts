/**
 * The `pulumi-reviewadmin` command: help, usage errors, the Node check, and the compiled bin run
 * as a user runs it (a child process of dist/cli/main.js).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { nodeProblem } from "../../contract/nodeVersion";
import { runCli } from "./runCli";

const repoRoot = path.resolve(__dirname, "../..");

describe("pulumi-reviewadmin", () => {
  it("lists its commands, and each command has --help", async () => {
    const r = await runCli(["--help"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: pulumi-reviewadmin <command> \[options\]/);
    expect(r.out).toMatch(/\n {2}routes {2}/);
    expect(r.out).toMatch(/\n {2}export {2}/);
    for (const command of ["routes", "export"]) {
      const help = await runCli([command, "--help"]);
      expect(help).toMatchObject({ code: 0, err: "" });
      expect(help.out).toMatch(new RegExp(`^Usage: pulumi-reviewadmin ${command} \\[options\\]`));
    }
  });

  it("says in one line what is wrong with how it was called", async () => {
    expect(await runCli([])).toMatchObject({ code: 2 });
    const unknown = await runCli(["frobnicate"]);
    expect(unknown).toMatchObject({ code: 2, out: "" });
    expect(unknown.err).toMatch(
      /^pulumi-reviewadmin: unknown command 'frobnicate'; commands: ([\w-]+, )*routes(, [\w-]+)* \(see --help\)\n$/,
    );
    expect(await runCli(["routes", "--frob"])).toEqual({
      code: 2,
      out: "",
      err: "pulumi-reviewadmin routes: Unknown option '--frob' (see pulumi-reviewadmin routes --help)\n",
    });
  });

  it("suggests the command or option meant", async () => {
    const cmd = await runCli(["exprot"]);
    expect(cmd).toMatchObject({ code: 2, out: "" });
    expect(cmd.err).toMatch(/^pulumi-reviewadmin: unknown command 'exprot'; did you mean 'export'\?; commands: /);
    const opt = await runCli(["doctor", "--stak", "prod"]);
    expect(opt).toMatchObject({ code: 2, out: "" });
    expect(opt.err).toMatch(/Unknown option '--stak'; did you mean --stack\?/);
    expect((await runCli(["routes", "--frob"])).err).not.toMatch(/did you mean/);
  });

  it("says which Node it needs", () => {
    expect(nodeProblem("20.20.2")).toBe(
      "pulumi-reviewadmin needs Node 22.19 or newer (Node 24 recommended); this is Node 20.20.2. Install one from https://nodejs.org or with your version manager (nvm install 24).",
    );
    expect(nodeProblem("22.18.0")).toMatch(/needs Node 22\.19/);
    expect(nodeProblem("22.19.0")).toBeUndefined();
    expect(nodeProblem("24.1.0")).toBeUndefined();
  });

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

  it("routes lists every operation of the contract", async () => {
    const r = await runCli(["routes", "--json"]);
    const rows = JSON.parse(r.out) as { id: string; operationId: string }[];
    expect(rows).toHaveLength(35);
    expect(rows[0]).toMatchObject({ id: "E1", operationId: "GetDatabases", method: "GET", path: "/v1/databases" });
  });

  it("the compiled bin runs as a user runs it", () => {
    const r = spawnSync(process.execPath, [path.join(repoRoot, "dist/cli/main.js"), "routes"], { encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout.split("\n").filter(Boolean)).toHaveLength(35);
  });
});
