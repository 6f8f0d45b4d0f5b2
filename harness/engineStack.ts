/**
 * EngineStack: a stack run by the real Pulumi engine, through the Automation API: up, preview,
 * refresh, destroy, the state kept between runs, each run's steps and messages
 * (harness/runResult.ts). What the program-level tests, the demo and the benchmarks run under.
 *
 * - A program is a function (an inline program: it runs in this process, the engine connects to
 *   it) or the path of a program file (run by the Node.js language host in its folder, as
 *   `pulumi up` runs it).
 * - State lives in a local file backend in a temporary folder, secrets under a passphrase, no login.
 * - The dynamic-provider plugin runs in `cwd` (inline programs) or the program's folder, which must
 *   resolve `@pulumi/pulumi` and the package the program's resources load.
 * - Needs `pulumi` on PATH (harness/pulumiCli.ts).
 */
import * as fs from "node:fs";
import { runAsync } from "./runAsync";
import * as os from "node:os";
import * as path from "node:path";
import * as automation from "@pulumi/pulumi/automation";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime";
import * as runtimeSettings from "@pulumi/pulumi/runtime/settings";
import type { LogLine } from "./pluginDriver";
import { isChange, RunError, type RunResult, type StateEntry, type Step } from "./runResult";
import type { StepOp } from "./engineSteps";
import { sortKeys, withoutProvider } from "./wire";

/** An inline Pulumi program: a function returning the stack exports. */
export type ProgramFn = () => Promise<Record<string, any> | void> | Record<string, any> | void;

/** A program: a function (inline), or the path of a program file. */
export type EngineProgram = ProgramFn | string;

/** Options of an {@link EngineStack}. */
export interface EngineStackOptions {
  /** Project name (URNs, and the namespace of `new pulumi.Config()`). */
  project: string;
  /** Default "dev". */
  stack?: string;
  /** Stack config, keys namespaced ("reviewadmin:apiKey"). */
  config: Record<string, string>;
  /** Keys of `config` stored as secrets. */
  secretConfigKeys?: string[];
  /** Folder the plugin runs in for inline programs (default: this process's cwd). */
  cwd?: string;
  /** Extra environment of every CLI run. */
  env?: Record<string, string>;
  /** Read the state back after each run into `state` (default true; a benchmark of a huge stack turns it off). */
  keepState?: boolean;
  /** Keep everything each run printed in `lastTranscript` (default false). */
  keepTranscript?: boolean;
}

/** Options of one run, as the CLI's flags. */
export interface EngineRunOptions {
  /** `--expect-no-changes`. */
  expectNoChanges?: boolean;
  /** `--parallel N` (default: the engine's, 4 x CPUs). */
  parallel?: number;
  /** `--continue-on-error` (up): a failed step does not stop the others. */
  continueOnError?: boolean;
  /** `--diff` (up, preview): the CLI prints each change's properties. */
  diff?: boolean;
  /** `--target URN` for each (up, preview, refresh, destroy). */
  target?: string[];
  /** `--refresh` (up, preview). */
  refresh?: boolean;
  /** `--run-program` (refresh, destroy): the program runs, so the provider takes today's config. */
  runProgram?: boolean;
  /** `--policy-pack` folders (up, preview). */
  policyPacks?: string[];
  /** `--policy-pack-config` files, one per pack. */
  policyPackConfigs?: string[];
  /** Extra environment of this run's CLI only (over the stack's `env`). */
  env?: Record<string, string>;
  /** `--save-plan FILE` (preview) or `--plan FILE` (up): the engine's update plan. */
  plan?: string;
  /** Writes the run's engine events to this file, one JSON object per line, as `--event-log FILE` does. */
  eventLog?: string;
}

/** What a run printed, in addition to its result: everything, for searching (a key must never be there). */
export interface EngineTranscript {
  /** The CLI's stdout and every engine event, as JSON, in order. */
  text: string;
}

const PASSPHRASE = "reviewadmin-engine-passphrase";

// Every run of an inline program connects new gRPC clients (the SDK's) to a new engine, which may
// listen on a port an engine of an earlier run used. grpc-js keeps one subchannel pool per process
// and would hand the new client the old, failed connection: the run then fails with "14
// UNAVAILABLE: No connection established". A subchannel pool per client avoids that; user programs
// run one per process and never meet it. (Set on the SDK's options object, read at each connect.)
(runtimeSettings as unknown as { grpcClientOptions: Record<string, unknown> }).grpcClientOptions["grpc.use_local_subchannel_pool"] = 1;

/** Engine ops of a replacement, reported as one "replace" step. */
const REPLACE_OPS = new Set<string>(["replace", "create-replacement"]);

const nameOf = (urn: string) => urn.slice(urn.lastIndexOf("::") + 2);
const same = (a: unknown, b: unknown) => JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
const skipped = (type: string) => type === "pulumi:pulumi:Stack" || type.startsWith("pulumi:providers:");

/**
 * The steps of one run, taken from its engine events as they arrive (each event's full state is
 * then dropped: at tens of thousands of people a run's events are hundreds of MB), one per
 * resource, a replacement's parts merged.
 */
function stepCollector(kind: RunResult["kind"]) {
  const steps = new Map<string, Step>();
  const add = (key: string, step: Step) => {
    const prior = steps.get(key);
    steps.set(key, prior ? { ...prior, ...step, op: prior.op === "replace" ? "replace" : step.op } : step);
  };
  const onEvent = (e: automation.EngineEvent) => {
    // Preview reports what it would do before each step; a run, what it did after.
    const m = kind === "preview" ? e.resourcePreEvent?.metadata : (e.resOutputsEvent?.metadata ?? e.resOpFailedEvent?.metadata);
    if (!m || skipped(m.type)) return;
    const base = { urn: m.urn, type: m.type, name: nameOf(m.urn), id: m.new?.id ?? m.old?.id };
    if (kind === "refresh") {
      const before = withoutProvider(m.old?.outputs);
      const after = withoutProvider(m.new?.outputs);
      const op: StepOp = !m.new || m.op === "delete" ? "refresh-gone" : same(before, after) ? "refresh-same" : "refresh-changed";
      const changedKeys =
        before && after
          ? [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => !same(before[k], after[k]))
          : undefined;
      return add(m.urn, { ...base, op, changedKeys });
    }
    let op: StepOp;
    if (REPLACE_OPS.has(m.op)) op = "replace";
    else if (m.op === "delete-replaced") {
      // The old half of a replacement, or a pending delete left by an earlier failed run.
      if (!steps.has(m.urn)) add(`${m.urn}#old`, { ...base, op: "delete" });
      return;
    } else if (["create", "update", "same", "delete", "read", "import"].includes(m.op)) op = m.op as StepOp;
    else return; // discard, remove-pending-replace, refresh (of `up --refresh`): not a step of their own here
    add(m.urn, { ...base, op, changedKeys: m.diffs?.length ? m.diffs : undefined });
  };
  return { onEvent, steps: () => [...steps.values()] };
}

/**
 * A deployment's property map with its secrets (`--show-secrets`: the signature and `plaintext`)
 * unwrapped, as `state` keeps it; and the top-level keys that were secret.
 */
function unwrapSecrets(props: Record<string, unknown> | undefined): { props: Record<string, unknown>; secretKeys: string[] } {
  const secretKeys: string[] = [];
  const unwrap = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(unwrap);
    if (!v || typeof v !== "object") return v;
    const o = v as Record<string, unknown>;
    if (o[specialSigKey] === specialSecretSig && typeof o.plaintext === "string") return unwrap(JSON.parse(o.plaintext));
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, unwrap(x)]));
  };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(props ?? {})) {
    if (v && typeof v === "object" && (v as Record<string, unknown>)[specialSigKey] === specialSecretSig) secretKeys.push(k);
    out[k] = unwrap(v);
  }
  return { props: out, secretKeys };
}

/** The dynamic resources of an exported deployment, as `state` keeps them. */
function stateOf(deployment: automation.Deployment): Map<string, StateEntry> {
  const out = new Map<string, StateEntry>();
  for (const r of (deployment.deployment?.resources ?? []) as any[]) {
    if (!r.custom || skipped(r.type)) continue;
    const inputs = unwrapSecrets(r.inputs);
    const outputs = unwrapSecrets(r.outputs);
    out.set(r.urn, {
      urn: r.urn,
      type: r.type,
      name: nameOf(r.urn),
      id: r.id,
      inputs: inputs.props,
      outputs: outputs.props,
      parent: r.parent,
      dependencies: r.dependencies ?? [],
      protect: !!r.protect,
      retainOnDelete: !!r.retainOnDelete,
      secretKeys: [...new Set([...inputs.secretKeys, ...outputs.secretKeys])].sort(),
      ...(r.delete ? { pendingDelete: true } : {}),
    });
  }
  return out;
}

/** One `pulumi` run's steps, messages, errors and policy events; its whole transcript with `keepTranscript`. */
function recorder(kind: RunResult["kind"], keepTranscript: boolean) {
  const collector = stepCollector(kind);
  const logs: LogLine[] = [];
  const errors: string[] = [];
  const policy: automation.PolicyEvent[] = [];
  let text = "";
  let output = "";
  let errorOutput = "";
  return {
    steps: collector.steps,
    logs,
    errors,
    policy,
    get text() {
      return text;
    },
    get output() {
      return output;
    },
    get errorOutput() {
      return errorOutput;
    },
    onOutput: (out: string) => {
      output += out;
      if (keepTranscript) text += out;
    },
    onError: (err: string) => {
      errorOutput += err;
      if (keepTranscript) text += err;
    },
    onEvent: (e: automation.EngineEvent) => {
      collector.onEvent(e);
      if (keepTranscript) text += `${JSON.stringify(e)}\n`;
      if (e.policyEvent) policy.push(e.policyEvent);
      const d = e.diagnosticEvent;
      // Debug lines (the SDK's own RPC tracing) are not what a run printed for the user.
      if (!d?.message || (d.severity as string) === "debug") return;
      const stream = d.severity === "info" ? "stdout" : "stderr";
      const urn = d.urn ? { urn: d.urn } : {};
      for (const line of d.message.trimEnd().split("\n")) logs.push({ stream, line, ...urn });
      if (d.severity === "error") errors.push(d.message.trim());
    },
  };
}

/** A stack of the real engine (see the file comment). */
export class EngineStack {
  /** The dynamic resources in state after the last run, by URN. */
  state = new Map<string, StateEntry>();
  readonly project: string;
  readonly stackName: string;
  /** Folder of the local backend (the checkpoint files). */
  readonly backendDir: string;
  /** Everything the last run printed (CLI output and engine events), with `keepTranscript`. */
  lastTranscript: EngineTranscript = { text: "" };
  private readonly tmp: string;
  private readonly workDir: string;
  private stack?: Promise<automation.Stack>;
  private queue: Promise<unknown> = Promise.resolve();
  private main?: string;

  constructor(private readonly opts: EngineStackOptions) {
    this.project = opts.project;
    this.stackName = opts.stack ?? "dev";
    this.tmp = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-engine-"));
    this.backendDir = path.join(this.tmp, "backend");
    this.workDir = path.join(this.tmp, "project");
    fs.mkdirSync(this.backendDir);
    fs.mkdirSync(this.workDir);
  }

  /** `pulumi up --yes --skip-preview`. Throws {@link RunError} on failure. */
  up(program: EngineProgram, opts: EngineRunOptions = {}): Promise<RunResult> {
    return this.run("up", program, opts);
  }

  /** `pulumi preview`. */
  preview(program: EngineProgram, opts: EngineRunOptions = {}): Promise<RunResult> {
    return this.run("preview", program, opts);
  }

  /** `pulumi refresh --yes` (the program does not run unless `runProgram`). */
  refresh(opts: EngineRunOptions = {}, program?: EngineProgram): Promise<RunResult> {
    return this.run("refresh", program, opts);
  }

  /** `pulumi destroy --yes`. */
  destroy(opts: EngineRunOptions = {}, program?: EngineProgram): Promise<RunResult> {
    return this.run("destroy", program, opts);
  }

  /** `pulumi config set [--secret] <key> <value>`. */
  async setConfig(key: string, value: string, secret = false): Promise<void> {
    await this.serial(async () => (await this.open()).setConfig(key, { value, secret }));
  }

  /** `pulumi stack export --show-secrets` (the Automation API's export): secrets in plain text. */
  async exportStack(): Promise<automation.Deployment> {
    return this.serial(async () => (await this.open()).exportStack());
  }

  /** Runs `pulumi <args>` on this stack's project and backend, as a user at a shell would. */
  async cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return this.serial(async () => {
      const ws = (await this.open()).workspace as automation.LocalWorkspace;
      // Not spawnSync: an emulator in this process must go on answering while the CLI runs.
      return runAsync("pulumi", [...args, "--stack", this.stackName, "--non-interactive"], { cwd: this.workDir, env: ws.envVars });
    });
  }

  /** What a `pulumi` command run elsewhere needs to reach this stack: its backend and passphrase, and its full name. */
  cliAccess(): { env: Record<string, string>; name: string } {
    return {
      env: { PULUMI_BACKEND_URL: `file://${this.backendDir}`, PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, PULUMI_SKIP_UPDATE_CHECK: "true" },
      name: `organization/${this.opts.project}/${this.stackName}`,
    };
  }

  /** Size in bytes of the stack's checkpoint file in the local backend (0 before the first run). */
  checkpointBytes(): number {
    const stacks = path.join(this.backendDir, ".pulumi", "stacks");
    const walk = (dir: string): string[] =>
      fs.existsSync(dir)
        ? fs
            .readdirSync(dir, { withFileTypes: true })
            .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]))
        : [];
    const file = walk(stacks).find((f) => path.basename(f) === `${this.stackName}.json`);
    return file ? fs.statSync(file).size : 0;
  }

  /** The state entry of the resource named `name` (optionally of type `type`). */
  find(name: string, type?: string): StateEntry | undefined {
    return [...this.state.values()].find((s) => s.name === name && (type === undefined || s.type === type));
  }

  /** The workspace, for what this class does not wrap (`pulumi import`, stack outputs). */
  async workspaceStack(): Promise<automation.Stack> {
    return this.open();
  }

  /** Waits for a run under way and removes the temporary backend. */
  async close(): Promise<void> {
    await this.queue.catch(() => {});
    fs.rmSync(this.tmp, { recursive: true, force: true });
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.catch(() => {}).then(fn);
    this.queue = run;
    return run;
  }

  private open(): Promise<automation.Stack> {
    this.stack ??= (async () => {
      const secret = new Set(this.opts.secretConfigKeys ?? []);
      const stack = await automation.LocalWorkspace.createOrSelectStack(
        { stackName: this.stackName, workDir: this.workDir },
        {
          envVars: {
            PULUMI_BACKEND_URL: `file://${this.backendDir}`,
            PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
            PULUMI_SKIP_UPDATE_CHECK: "true",
            // A .ts program is type-checked by `npm run typecheck`; ts-node checking it again costs seconds per run.
            PULUMI_NODEJS_TRANSPILE_ONLY: "true",
            ...this.opts.env,
          },
          projectSettings: this.projectSettings(path.resolve(this.opts.cwd ?? process.cwd())),
        },
      );
      await stack.setAllConfig(
        Object.fromEntries(Object.entries(this.opts.config).map(([key, value]) => [key, { value, secret: secret.has(key) }])),
      );
      return stack;
    })();
    return this.stack;
  }

  /** A folder as main: the plugin runs there (inline); a file: the language host runs it in its folder. */
  private projectSettings(main: string): automation.ProjectSettings {
    this.main = main;
    return {
      name: this.project,
      runtime: { name: "nodejs", options: { typescript: main.endsWith(".ts") } },
      main,
    };
  }

  private run(kind: RunResult["kind"], program: EngineProgram | undefined, opts: EngineRunOptions): Promise<RunResult> {
    return this.serial(async () => {
      const stack = await this.open();
      // A program file becomes the project's main; an inline program runs with main = the plugin's folder.
      const main = typeof program === "string" ? path.resolve(program) : path.resolve(this.opts.cwd ?? process.cwd());
      if (main !== this.main) await stack.workspace.saveProjectSettings(this.projectSettings(main));
      const inline = typeof program === "function" ? async () => (await program()) ?? undefined : undefined;
      const rec = recorder(kind, this.opts.keepTranscript ?? false);
      if (opts.eventLog) fs.writeFileSync(opts.eventLog, "");
      const common = {
        color: "never" as const,
        onEvent: opts.eventLog
          ? (e: automation.EngineEvent) => {
              fs.appendFileSync(opts.eventLog!, JSON.stringify(e) + "\n");
              rec.onEvent(e);
            }
          : rec.onEvent,
        onOutput: rec.onOutput,
        onError: rec.onError,
        target: opts.target,
        parallel: opts.parallel,
      };
      const policy = { policyPacks: opts.policyPacks, policyPackConfigs: opts.policyPackConfigs };
      let outputs: Record<string, any> = {};
      let failure: unknown;
      const envBefore = { ...stack.workspace.envVars };
      Object.assign(stack.workspace.envVars, opts.env);
      try {
        if (kind === "up") {
          const res = await stack.up({
            ...common,
            ...policy,
            program: inline,
            expectNoChanges: opts.expectNoChanges,
            refresh: opts.refresh,
            continueOnError: opts.continueOnError,
            diff: opts.diff,
            plan: opts.plan,
          });
          outputs = Object.fromEntries(Object.entries(res.outputs).map(([k, o]) => [k, o.value]));
        } else if (kind === "preview") {
          await stack.preview({
            ...common,
            ...policy,
            program: inline,
            expectNoChanges: opts.expectNoChanges,
            refresh: opts.refresh,
            diff: opts.diff,
            plan: opts.plan,
          });
        } else {
          // Refresh and destroy run the program only with --run-program: the workspace's program then.
          stack.workspace.program = inline;
          const o = { ...common, runProgram: opts.runProgram, expectNoChanges: opts.expectNoChanges };
          if (kind === "refresh") await stack.refresh(o);
          else await stack.destroy(o);
        }
      } catch (err) {
        failure = err;
      } finally {
        stack.workspace.program = undefined;
        for (const key of Object.keys(opts.env ?? {})) delete stack.workspace.envVars[key];
        Object.assign(stack.workspace.envVars, envBefore);
      }
      this.lastTranscript = { text: rec.text };
      if (kind !== "preview" && this.opts.keepState !== false) this.state = stateOf(await stack.exportStack());
      const steps = rec.steps();
      const result: RunResult = {
        kind,
        outputs,
        steps,
        changes: steps.filter(isChange).length,
        logs: rec.logs,
        errors: failure ? (rec.errors.length ? rec.errors : [failureText(failure)]) : [],
        policy: rec.policy,
        output: rec.output,
        errorOutput: rec.errorOutput,
      };
      if (failure) throw new RunError(result, [failure]);
      return result;
    });
  }
}

/** The message of a failed CLI run: its stderr when it is a CommandError, else the error's message. */
function failureText(err: unknown): string {
  const e = err as { stderr?: string; message?: string };
  return (e.stderr?.trim() || e.message || String(err)).trim();
}
