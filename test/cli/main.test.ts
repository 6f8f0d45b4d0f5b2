/**
 * The `pulumi-reviewadmin` command, run in this process: help (`help <command>`, subcommands listed),
 * usage errors with a did-you-mean, the plural helper, the Node check. The
 * compiled bin as a user runs it (a child process of dist/cli/main.js), and the package's entry
 * points on an old Node: test/engine/builtPackage.test.ts.
 */
import { describe, expect, it } from "vitest";
import { closest, plural } from "../../cli/command";
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
      /^pulumi-reviewadmin: unknown command 'frobnicate' \(commands: ([\w-]+, )*routes(, [\w-]+)*; see pulumi-reviewadmin --help\)\n$/,
    );
    expect(await runCli(["routes", "--frob"])).toEqual({
      code: 2,
      out: "",
      err: "pulumi-reviewadmin routes: unknown option --frob (see pulumi-reviewadmin routes --help)\n",
    });
    // A name Object.prototype has is no command either.
    expect(await runCli(["toString"])).toMatchObject({ code: 2, out: "" });
    expect(await runCli(["review", "constructor"])).toMatchObject({ code: 2, out: "" });
  });

  it("suggests the command, subcommand or option meant, in one line, exit 2", async () => {
    const oneLine = (r: { code: number; out: string; err: string }) => {
      expect(r).toMatchObject({ code: 2, out: "" });
      expect(r.err.trimEnd().split("\n")).toHaveLength(1);
      expect(r.err).not.toMatch(/\bat \S+ \(/); // no stack trace
      return r.err;
    };
    expect(oneLine(await runCli(["exprot"]))).toMatch(
      /^pulumi-reviewadmin: unknown command 'exprot'; did you mean 'export'\? \(commands: /,
    );
    expect(oneLine(await runCli(["reveiw"]))).toMatch(/unknown command 'reveiw'; did you mean 'review'\?/);
    expect(oneLine(await runCli(["review", "verify-remediaton", "--packet", "x"]))).toBe(
      "pulumi-reviewadmin review: unknown subcommand 'verify-remediaton'; did you mean 'verify-remediation'? " +
        "(subcommands: apply-signoff, walls, verify, verify-remediation, reconcile; see pulumi-reviewadmin review --help)\n",
    );
    expect(oneLine(await runCli(["doctor", "--stak", "prod"]))).toBe(
      "pulumi-reviewadmin doctor: unknown option --stak; did you mean --stack? (see pulumi-reviewadmin doctor --help)\n",
    );
    expect(oneLine(await runCli(["review", "apply-signoff", "--sigoff", "a.csv"]))).toMatch(
      /unknown option --sigoff; did you mean --signoff\?/,
    );
    expect(oneLine(await runCli(["doctor", "--hepl"]))).toMatch(/unknown option --hepl; did you mean --help\?/);
    expect(oneLine(await runCli(["--stak"]))).toMatch(/^pulumi-reviewadmin: unknown option --stak; options go after the command/);
    expect(oneLine(await runCli(["routes", "--frob"]))).not.toMatch(/did you mean/);
  });

  it("closest: within a third of the word's letters, a swap of neighbours one edit", () => {
    expect(closest("reveiw", ["review", "routes"])).toBe("review");
    expect(closest("stak", ["stack", "org"])).toBe("stack");
    expect(closest("hepl", ["help"])).toBe("help");
    expect(closest("frob", ["stack", "org", "help"])).toBeUndefined();
    expect(closest("STACK", ["stack"])).toBe("stack");
  });

  it("plural: one noun for one, the plural for the rest, numbers grouped", () => {
    expect(plural(1, "organization")).toBe("1 organization");
    expect(plural(0, "organization")).toBe("0 organizations");
    expect(plural(2, "database")).toBe("2 databases");
    expect(plural(1, "breach", "breaches")).toBe("1 breach");
    expect(plural(1200, "person", "people")).toBe("1,200 people");
  });

  it("help <command> [<subcommand>] prints that command's help", async () => {
    const review = await runCli(["help", "review"]);
    expect(review).toMatchObject({ code: 0, err: "" });
    expect(review.out).toMatch(/^Usage: pulumi-reviewadmin review \[options\]/);
    expect(review.out).toBe((await runCli(["review", "--help"])).out);
    const verify = await runCli(["help", "review", "verify"]);
    expect(verify).toMatchObject({ code: 0, err: "" });
    expect(verify.out).toMatch(/^Usage: pulumi-reviewadmin review verify \[options\] FOLDER/);
    expect(verify.out).toBe((await runCli(["review", "verify", "--help"])).out);
    expect((await runCli(["help", "doctor"])).out).toMatch(/^Usage: pulumi-reviewadmin doctor \[options\]/);
    expect((await runCli(["help"])).out).toBe((await runCli(["--help"])).out);
    expect((await runCli(["help", "reveiw"])).err).toMatch(/unknown command 'reveiw'; did you mean 'review'\?/);
    expect(await runCli(["help", "review", "verfy"])).toMatchObject({ code: 2, err: expect.stringMatching(/did you mean 'verify'\?/) });
    expect(await runCli(["help", "doctor", "extra"])).toMatchObject({ code: 2, out: "" });
  });

  it("a command's --help lists its subcommands, each with its summary", async () => {
    const review = await runCli(["review", "--help"]);
    const listed = /\nSubcommands:\n((?: {2}.*\n)+)/.exec(review.out)?.[1] ?? "";
    expect(listed.trimEnd().split("\n")).toEqual([
      "  apply-signoff       apply a reviewer's sign-off to the exported access.ts",
      "  walls               the ethical wall compliance report of a stack for a period",
      "  verify              check a review packet against its manifest (altered, missing or added files)",
      "  verify-remediation  re-read the service: is each access the sign-off removed gone?",
      "  reconcile           after the sign-off's up: each decision matched to the change that carried it out, or why not",
    ]);
    expect(review.out).toContain("pulumi-reviewadmin review <subcommand> [options]");
    // A command without subcommands says nothing of them.
    expect((await runCli(["doctor", "--help"])).out).not.toContain("Subcommands:");
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
