/**
 * What `pulumi/actions@v7` does with a step's inputs, done the way its source does it
 * (github.com/pulumi/actions at v7.0.0: src/main.ts, src/config.ts, src/login.ts, src/libs/pr.ts),
 * with the Automation API of this repository's @pulumi/pulumi:
 *
 * - no `command`: install-only mode (the CLI is on PATH here, so nothing to do);
 * - workDir = resolve(GITHUB_WORKSPACE, work-dir); `pulumi --non-interactive --cwd <workDir> login
 *   <cloud-url>` (or plain `login`: Pulumi Cloud), whose failure is only a warning;
 * - `LocalWorkspace.selectStack({ stackName, workDir })` (`createOrSelectStack` with `upsert`);
 * - `stack.preview(options)` or `stack.up({ onOutput, ...options })` (refresh, destroy alike), the
 *   inputs mapped to options as config.ts maps them, paths passed as written (so the CLI, which
 *   runs in workDir, resolves them there);
 * - then `stack.outputs()`; with `comment-on-pr` on a pull_request event, the comment pr.ts would
 *   post (ANSI codes stripped, cut at 64,000 characters, from the front with
 *   `always-include-summary`); it is kept, not posted;
 * - any error fails the step with its message (core.setFailed).
 *
 * Backends: there is no Pulumi Cloud and no S3 here. A {@link Backend} stands for both: a file://
 * folder the login goes to, with the substitutions it needs said where they are made.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { LocalWorkspace, type OutputMap, type Stack } from "@pulumi/pulumi/automation";

/** The `github` context of a run: what the event and the repository are. */
export interface GithubContext {
  token: string;
  repository: string;
  ref: string;
  event_name: string;
  event: Record<string, unknown>;
}

/** Runs a command without blocking this process (the emulator answers from it); resolves with its exit code and output. */
export function runCommand(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string> },
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

/** The backend standing for the ones the workflow files name (Pulumi Cloud, `s3://...`): a file:// folder. */
export class Backend {
  /**
   * @param url the file:// folder
   * @param passphrase the passphrase of its stacks
   * @param cloudOrg the Pulumi Cloud organization the files name their stacks with (acme)
   */
  constructor(
    readonly url: string,
    readonly passphrase: string,
    readonly cloudOrg: string,
  ) {}

  /** What the action logs in to: Pulumi Cloud (no cloud-url) and an `s3://` bucket both become the folder. */
  loginUrl(cloudUrl: string): string {
    if (cloudUrl === "" || cloudUrl.startsWith("s3://")) return this.url;
    throw new Error(`the backend stand-in replaces Pulumi Cloud and s3:// only, not ${cloudUrl}`);
  }

  /**
   * A stack name as the folder takes it. A DIY backend accepts no organization but "organization"
   * (pkg/backend/diy/store.go, ParseReference: "organization name must be 'organization'"), so
   * Pulumi Cloud's organization becomes that; the project and the stack stay as written, and the
   * CLI still checks the project against Pulumi.yaml.
   */
  stackName(name: string): string {
    return name.startsWith(`${this.cloudOrg}/`) ? `organization/${name.slice(this.cloudOrg.length + 1)}` : name;
  }

  /** A `run:` script with Pulumi Cloud's stack names (`--stack acme/...`) as the folder takes them. */
  rewriteScript(script: string): string {
    return script.replace(new RegExp(`(--stack\\s+)${this.cloudOrg}/`, "g"), "$1organization/");
  }

  /**
   * The environment of a step the YAML gives Pulumi Cloud's token: with it, the CLI is logged in
   * to Pulumi Cloud, so here it gets the folder (PULUMI_BACKEND_URL), and the passphrase standing
   * for Pulumi Cloud's own encryption of the stack's secrets (as {@link actionEnv} gives it).
   */
  scriptEnv(stepEnv: Record<string, string>, yamlEnv: Record<string, string>): Record<string, string> {
    return "PULUMI_ACCESS_TOKEN" in yamlEnv
      ? { ...stepEnv, PULUMI_BACKEND_URL: this.url, PULUMI_CONFIG_PASSPHRASE: this.passphrase }
      : stepEnv;
  }

  /**
   * The environment of the action on Pulumi Cloud (no cloud-url): Pulumi Cloud encrypts a stack's
   * secrets itself; the folder standing for it uses a passphrase, which the step then needs.
   */
  actionEnv(cloudUrl: string, stepEnv: Record<string, string>): Record<string, string> {
    return cloudUrl === "" ? { ...stepEnv, PULUMI_CONFIG_PASSPHRASE: this.passphrase } : stepEnv;
  }
}

/** What the action did. */
export interface PulumiActionRun {
  /** Undefined in install-only mode. */
  command?: string;
  note?: string;
  /** The stack name it ran on (after the backend's substitution). */
  stackName?: string;
  workDir?: string;
  /** The options the inputs mapped to. */
  options?: Record<string, unknown>;
  stdout: string;
  stderr: string;
  /** Everything it printed, the login included. */
  log: string;
  /** The message it failed the step with (core.setFailed). */
  failed?: string;
  outputs?: OutputMap;
  /** The pull-request comment it would post (pr.ts). */
  comment?: { heading: string; message: string; trimmed: boolean };
}

/** Inputs this stand-in implements (action.yml); any other fails the run rather than being ignored. */
const DEFAULTS: Record<string, string> = {
  command: "",
  "stack-name": "",
  "work-dir": "./",
  "cloud-url": "",
  "comment-on-pr": "false",
  "github-token": "",
  "edit-pr-comment": "true",
  "expect-no-changes": "false",
  diff: "false",
  refresh: "false",
  upsert: "false",
  policyPacks: "",
  policyPackConfigs: "",
  color: "auto",
  "suppress-outputs": "false",
  "suppress-progress": "false",
  "always-include-summary": "false",
  "continue-on-error": "false",
};

const COMMANDS = ["up", "update", "refresh", "destroy", "preview", "output"] as const;

/** GitHub's comment limit with pr.ts's margin. */
export const MAX_CHARACTER_COMMENT = 64_000;

/** Variables the Automation API would take from this process (it adds process.env to the CLI's): none may be set. */
const MUST_NOT_LEAK = [
  "REVIEWADMIN_API_KEY",
  "REVIEWADMIN_BASE_URL",
  "PULUMI_ACCESS_TOKEN",
  "PULUMI_CONFIG_PASSPHRASE",
  "PULUMI_BACKEND_URL",
];

/** Runs the action's step; never throws for what the action would report as a failed step. */
export async function runPulumiAction(
  inputs: Record<string, string>,
  ctx: { env: Record<string, string>; workspace: string; github: GithubContext; backend: Backend },
): Promise<PulumiActionRun> {
  for (const name of Object.keys(inputs)) {
    if (!(name in DEFAULTS)) throw new Error(`the pulumi/actions stand-in does not implement the input '${name}'`);
  }
  for (const name of MUST_NOT_LEAK) {
    if (process.env[name] !== undefined)
      throw new Error(`${name} is set in the test process: the Automation API would hand it to every job`);
  }
  const input = (name: string) => inputs[name] ?? DEFAULTS[name]!;
  // actions-parsers' getBooleanInput: the YAML 1.2 booleans, anything else is an error.
  const bool = (name: string) => {
    const v = input(name);
    if (/^(true|True|TRUE)$/.test(v)) return true;
    if (/^(false|False|FALSE)$/.test(v)) return false;
    throw new TypeError(`Input does not meet YAML 1.2 "Core Schema" specification: ${name}`);
  };
  // getMultilineInput, then parseSemicolorToArray: one per line or comma-separated.
  const list = (name: string) => {
    const lines = input(name)
      .split("\n")
      .filter((l) => l !== "");
    return lines.length
      ? lines
          .flatMap((l) => l.split(","))
          .filter((x) => x !== "")
          .map((x) => x.trim())
      : undefined;
  };

  const command = input("command");
  if (!command) return { note: "install-only mode (no command): the Pulumi CLI is on PATH here", stdout: "", stderr: "", log: "" };
  if (!(COMMANDS as readonly string[]).includes(command)) throw new Error(`command must be one of ${COMMANDS.join(", ")}, got ${command}`);
  const run: PulumiActionRun = { command, stdout: "", stderr: "", log: "" };
  try {
    if (!input("stack-name")) throw new Error("Input required and not supplied: stack-name");
    const workDir = path.resolve(ctx.workspace, input("work-dir"));
    const cloudUrl = input("cloud-url");
    const env = ctx.backend.actionEnv(cloudUrl, ctx.env);
    run.workDir = workDir;
    run.stackName = ctx.backend.stackName(input("stack-name"));

    const login = await runCommand("pulumi", ["--non-interactive", "--cwd", workDir, "login", ctx.backend.loginUrl(cloudUrl)], {
      cwd: ctx.workspace,
      env,
    });
    run.log += login.output;
    if (login.code !== 0) run.log += `Warning: Failed to login to Pulumi service: ${login.output}\n`;

    const options = {
      expectNoChanges: bool("expect-no-changes"),
      diff: bool("diff"),
      refresh: bool("refresh"),
      policyPacks: list("policyPacks"),
      policyPackConfigs: list("policyPackConfigs"),
      userAgent: "pulumi/actions@v6", // as v7.0.0's config.ts says
      color: input("color") as "always" | "never" | "raw" | "auto",
      suppressOutputs: bool("suppress-outputs"),
      suppressProgress: bool("suppress-progress"),
      continueOnError: bool("continue-on-error"),
    };
    run.options = options;
    const args = { stackName: run.stackName, workDir };
    const wsOpts = { envVars: env };
    const stack: Stack = bool("upsert")
      ? await LocalWorkspace.createOrSelectStack(args, wsOpts)
      : await LocalWorkspace.selectStack(args, wsOpts);
    const projectName = (await stack.workspace.projectSettings()).name;
    const onOutput = (msg: string) => void (run.log += msg);
    let result: { stdout: string; stderr: string };
    if (command === "preview") {
      result = await stack.preview(options);
      run.log += result.stdout + result.stderr;
    } else if (command === "up" || command === "update") result = await stack.up({ onOutput, ...options });
    else if (command === "refresh") result = await stack.refresh({ onOutput, ...options });
    else if (command === "destroy") result = await stack.destroy({ onOutput, ...options });
    else result = { stdout: "", stderr: "" };
    run.stdout = result.stdout;
    run.stderr = result.stderr;
    run.outputs = await stack.outputs();

    const isPullRequest = ctx.github.event_name === "pull_request";
    if (bool("comment-on-pr") && isPullRequest) {
      run.comment = prComment(command, projectName, input("stack-name"), result.stdout, bool("always-include-summary"));
    }
  } catch (err) {
    run.failed = (err as Error).message;
    run.log += run.failed;
  }
  return run;
}

/** The comment body's parts pr.ts builds: the heading, and the output without ANSI codes, cut to the limit. */
function prComment(command: string, project: string, stackName: string, output: string, alwaysIncludeSummary: boolean) {
  // eslint-disable-next-line no-control-regex
  let message = output.replace(/\x1B(?:[@-Z\\-_]|\[[0-?]*[ -/]*[@-~])/g, "");
  let trimmed = false;
  if (message.length > MAX_CHARACTER_COMMENT) {
    const dif = message.length - MAX_CHARACTER_COMMENT;
    message = alwaysIncludeSummary ? message.substring(dif) : message.substring(0, message.length - dif);
    trimmed = true;
  }
  return { heading: `#### :tropical_drink: \`${command}\` on ${project}/${stackName}`, message, trimmed };
}
