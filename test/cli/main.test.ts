/**
 * The `pulumi-reviewadmin` command, run in this process: help, usage errors, the Node check. The
 * compiled bin as a user runs it (a child process of dist/cli/main.js), and the package's entry
 * points on an old Node: test/engine/builtPackage.test.ts.
 */
import { describe, expect, it } from "vitest";
import { nodeProblem } from "../../contract/nodeVersion";
import { runCli } from "./runCli";

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

  it("routes lists every operation of the contract", async () => {
    const r = await runCli(["routes", "--json"]);
    const rows = JSON.parse(r.out) as { id: string; operationId: string }[];
    expect(rows).toHaveLength(35);
    expect(rows[0]).toMatchObject({ id: "E1", operationId: "GetDatabases", method: "GET", path: "/v1/databases" });
  });
});
