#!/usr/bin/env node
/**
 * `npm run example -- <name>`: runs one of the examples on this machine with nothing to set up,
 * the way the demo runs access-baseline: the seeded emulator in this process, `pulumi up`, then
 * `pulumi up` again (which must change nothing), with the steps and the stack outputs printed.
 * Uses the real Pulumi CLI (Automation API) when it is installed, else the bundled plugin harness.
 */
// First: on an old Node, one line saying which Node is needed, before the imports below crash.
import "../cli/requireNode";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type RunningEmulator } from "../emulator";
import { cliStack, harnessStack, hasPulumiCli, type Stack } from "../harness/twoEngines";
import { outputLines, stepLines } from "./report";

/** The examples this command runs (the folders of examples/ that are Pulumi programs). */
export const EXAMPLES = ["access-baseline", "access-review", "custodian-sync"] as const;

/** The --help text. */
export const USAGE = `Usage: npm run example -- <${EXAMPLES.join("|")}> [--harness]
       node dist/demo/runExample.js <name> [--harness] [--help]

Runs one example program of examples/ against the emulator's seeded world, on this machine:
pulumi up, then pulumi up again (nothing may change), printing each step and the stack outputs.
With the Pulumi CLI on PATH, or built by \`npm run pulumi-cli\`, it runs the real CLI (Automation
API, a local backend in a temporary folder); without it, the bundled plugin harness (the real
dynamic-provider plugin over gRPC).

Options:
  --harness   use the bundled plugin harness even when the Pulumi CLI is installed
  --help      show this text
`;

/** The example's project folder (Pulumi.yaml) and the program to run: compiled beside this file when built, else the source. */
function locate(name: string): { projectDir: string; program: string } {
  const roots = [path.resolve(__dirname, ".."), path.resolve(__dirname, "../..")];
  const projectDir = roots.map((r) => path.join(r, "examples", name)).find((d) => fs.existsSync(path.join(d, "Pulumi.yaml")));
  if (!projectDir) throw new Error(`cannot find examples/${name}/Pulumi.yaml next to ${__dirname}`);
  const compiled = path.resolve(__dirname, "../examples", name, "index.js");
  return { projectDir, program: fs.existsSync(compiled) ? compiled : path.join(projectDir, "index.ts") };
}

/** Runs the command line `argv`; writes through `write`; resolves to the exit code. */
export async function main(argv: readonly string[], write: (text: string) => void): Promise<number> {
  const say = (...lines: string[]) => write(lines.map((l) => `${l}\n`).join(""));
  const names = argv.filter((a) => !a.startsWith("-"));
  if (argv.includes("--help") || argv.includes("-h")) {
    write(USAGE);
    return 0;
  }
  const unknown = argv.filter((a) => a.startsWith("-") && a !== "--harness");
  const name = names[0];
  if (unknown.length > 0 || names.length !== 1 || !(EXAMPLES as readonly string[]).includes(name!)) {
    write(`npm run example: give one of ${EXAMPLES.join(", ")}${unknown.length ? ` (unknown option ${unknown[0]})` : ""}\n\n${USAGE}`);
    return 2;
  }
  const useCli = !argv.includes("--harness") && hasPulumiCli();
  const { projectDir, program } = locate(name!);
  let emu: RunningEmulator | undefined;
  let stack: Stack | undefined;
  // `pulumi up` runs a program in its project folder, so relative paths in it (the access
  // review's reportPath) land there; the harness runs the program in this process, so move too.
  const home = process.cwd();
  try {
    if (!useCli) process.chdir(projectDir);
    emu = await startEmulator();
    say(
      `Example ${name}, against the emulator at ${emu.url} (seeded world), with ${useCli ? "the Pulumi CLI" : "the bundled plugin harness (no Pulumi CLI)"}.`,
    );
    const args = {
      project: name!,
      stack: "example",
      program,
      config: { "reviewadmin:baseUrl": emu.url, "reviewadmin:apiKey": emu.keys.orgAdmin },
      secretConfigKeys: ["reviewadmin:apiKey"],
    };
    // The CLI runs the program in its entry file's folder; the harness in the project folder, as `pulumi up` there would.
    stack = useCli ? await cliStack(args) : harnessStack({ ...args, cwd: projectDir });

    say("", "pulumi up");
    const first = await stack.up();
    say(...stepLines(first), "  Outputs:", ...outputLines(first.outputs));

    say("", "pulumi up, again");
    const second = await stack.up({ expectNoChanges: true });
    say(...stepLines(second));
    say("", `Result: ${name} applied, and a second up changed nothing.`);
    return 0;
  } catch (err) {
    say("", `Failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await stack?.close();
    await emu?.close();
    process.chdir(home);
  }
}

if (require.main === module) {
  main(process.argv.slice(2), (t) => process.stdout.write(t)).then((code) => {
    process.exitCode = code;
  });
}
