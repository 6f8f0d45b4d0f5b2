/**
 * How the demo and `npm run example` run an example: under the real Pulumi CLI (found as the
 * tests find it, harness/pulumiCli.ts), the example's own index.ts run in its project folder as
 * `pulumi up` there runs it, with a local backend in a temporary folder (no login).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { EngineStack } from "../harness/engineStack";
import { useCli } from "../harness/pulumiCli";
import type { RunResult, StateEntry } from "../harness/runResult";

/**
 * The Pulumi CLI's version, the CLI now on PATH (from PATH or the cache of tools/pulumi-cli/build.sh);
 * without it, the one line saying how to get it. Never builds it.
 */
export function pulumiCli(command: string): { version: string } | { missing: string } {
  const cli = useCli();
  return cli.found ? { version: cli.version } : { missing: `${command} runs under the Pulumi CLI, and ${cli.reason} (see README.md).` };
}

/** The example's project folder (its Pulumi.yaml) and its program, the index.ts in that folder. */
export function exampleProject(name: string): { projectDir: string; program: string } {
  // From dist/demo (npm run demo) or from demo/ (a test importing the source).
  const roots = [path.resolve(__dirname, ".."), path.resolve(__dirname, "../..")];
  const projectDir = roots.map((r) => path.join(r, "examples", name)).find((d) => fs.existsSync(path.join(d, "Pulumi.yaml")));
  if (!projectDir) throw new Error(`cannot find examples/${name}/Pulumi.yaml next to ${__dirname}`);
  return { projectDir, program: path.join(projectDir, "index.ts") };
}

/** A run as the demo prints it: what the engine reported, and the stack's state before and after. */
export interface ShownRun {
  result: RunResult;
  before: ReadonlyMap<string, StateEntry>;
  after: ReadonlyMap<string, StateEntry>;
  wallMs: number;
}

/** Runs `run` on `stack`, keeping the state before it and after it, and its wall time. */
export async function shownRun(stack: EngineStack, run: (stack: EngineStack) => Promise<RunResult>): Promise<ShownRun> {
  const before = new Map(stack.state);
  const t0 = Date.now();
  const result = await run(stack);
  return { result, before, after: stack.state, wallMs: Date.now() - t0 };
}
