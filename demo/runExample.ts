#!/usr/bin/env node
/**
 * `npm run example -- <name>`: runs one of the examples on this machine with nothing to set up,
 * the way the demo runs access-baseline: the seeded emulator in this process, `pulumi up`, then
 * `pulumi up` again (which must change nothing), with the steps and the stack outputs printed.
 * Runs under the real Pulumi CLI (Automation API); without the CLI it says how to get it.
 */
// First: on an old Node, one line saying which Node is needed, before the imports below crash.
import "../cli/requireNode";
import { startEmulator, type RunningEmulator } from "../emulator";
import { EngineStack } from "../harness/engineStack";
import { exampleProject, pulumiCli, shownRun } from "./exampleStack";
import { outputLines, stepLines } from "./report";

/** The examples this command runs (the folders of examples/ that are Pulumi programs). */
export const EXAMPLES = ["access-baseline", "access-review", "custodian-sync"] as const;

/** The --help text. */
export const USAGE = `Usage: npm run example -- <${EXAMPLES.join("|")}>
       node dist/demo/runExample.js <name> [--help]

Runs one example program of examples/ against the emulator's seeded world, on this machine:
pulumi up, then pulumi up again (nothing may change), printing each step and the stack outputs.
It runs the real Pulumi CLI (Automation API, a local backend in a temporary folder), the program
in its project folder as \`pulumi up\` there runs it: the CLI on PATH, or the one
\`npm run pulumi-cli\` built. Without it, it says how to get it and exits with code 1.

Options:
  --help      show this text
`;

/** Runs the command line `argv`; writes through `write`; resolves to the exit code. */
export async function main(argv: readonly string[], write: (text: string) => void): Promise<number> {
  const say = (...lines: string[]) => write(lines.map((l) => `${l}\n`).join(""));
  const names = argv.filter((a) => !a.startsWith("-"));
  if (argv.includes("--help") || argv.includes("-h")) {
    write(USAGE);
    return 0;
  }
  const unknown = argv.filter((a) => a.startsWith("-"));
  const name = names[0];
  if (unknown.length > 0 || names.length !== 1 || !(EXAMPLES as readonly string[]).includes(name!)) {
    write(`npm run example: give one of ${EXAMPLES.join(", ")}${unknown.length ? ` (unknown option ${unknown[0]})` : ""}\n\n${USAGE}`);
    return 2;
  }
  const cli = pulumiCli("npm run example");
  if ("missing" in cli) {
    say(cli.missing);
    return 1;
  }
  const { program } = exampleProject(name!);
  let emu: RunningEmulator | undefined;
  let stack: EngineStack | undefined;
  try {
    emu = await startEmulator();
    say(`Example ${name}, against the emulator at ${emu.url} (seeded world), with the Pulumi CLI ${cli.version}.`);
    stack = new EngineStack({
      project: name!,
      stack: "example",
      config: { "reviewadmin:baseUrl": emu.url, "reviewadmin:apiKey": emu.keys.orgAdmin },
      secretConfigKeys: ["reviewadmin:apiKey"],
    });

    say("", "pulumi up");
    const first = await shownRun(stack, (s) => s.up(program));
    say(...stepLines(first), "  Outputs:", ...outputLines(first.result.outputs));

    say("", "pulumi up, again");
    say(...stepLines(await shownRun(stack, (s) => s.up(program, { expectNoChanges: true }))));
    say("", `Result: ${name} applied, and a second up changed nothing.`);
    return 0;
  } catch (err) {
    say("", `Failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await stack?.close();
    await emu?.close();
  }
}

if (require.main === module) {
  main(process.argv.slice(2), (t) => process.stdout.write(t)).then((code) => {
    process.exitCode = code;
  });
}
