/**
 * One stack interface over the two ways to run a Pulumi program here:
 *
 * - `cliStack`: the real Pulumi CLI through the Automation API (LocalWorkspace), with a local file
 *   backend in a temporary folder (PULUMI_BACKEND_URL=file://..., a passphrase, no login). Needs
 *   `pulumi` on PATH.
 * - `harnessStack`: the bundled harness (`ProgramStack`, harness/program/stack.ts): the program
 *   under `pulumi.runtime.setMocks`, every dynamic resource sent to the REAL dynamic-provider
 *   plugin over gRPC, a fresh plugin per run, the state kept between runs.
 *
 * Both report the same thing: one step per resource with its outputs before and after, so the
 * demo and the tests print and check drift the same way whichever engine ran.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as automation from "@pulumi/pulumi/automation";
import { ProgramStack } from "./program/stack";
import { useCli } from "./pulumiCli";
import type { StepOp } from "./engineSteps";
import { isObject, PROVIDER_KEY, sortKeys } from "./wire";

/** What a program run needs. */
export interface StackArgs {
  /** Project name (URNs, and the namespace of `new pulumi.Config()`). */
  project: string;
  stack: string;
  /** The program's entry file (index.ts or index.js); it runs in its folder, as under the CLI. */
  program: string;
  /**
   * Folder the program and its dynamic-provider plugin run in (relative paths such as a CSV
   * path are read from here). Default: the program's folder. Only the harness can choose: the CLI
   * always runs the program in the folder of its entry file.
   */
  cwd?: string;
  /** Stack config, keys namespaced ("reviewadmin:apiKey", "<project>:organizationId"). */
  config: Record<string, string>;
  /** Keys of `config` stored as secrets. */
  secretConfigKeys?: string[];
}

/** One resource's step: what happened to it and its outputs before and after (`__provider` left out). */
export interface StackStep {
  op: StepOp;
  /** Short type, e.g. "OrganizationMembers". */
  type: string;
  name: string;
  urn: string;
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
}

/** One run's steps, stack outputs and messages, in the same shape whichever engine ran it. */
export interface StackRun {
  kind: "up" | "refresh" | "destroy";
  steps: StackStep[];
  /** Stack outputs (up only). */
  outputs: Record<string, unknown>;
  /** What the program and the provider printed (pulumi.log messages, console output). */
  messages: string[];
}

/** A stack the demo and the tests drive, whichever engine runs it. */
export interface Stack {
  /** "cli": the Pulumi CLI (Automation API); "harness": the bundled plugin harness. */
  readonly engine: "cli" | "harness";
  /** `pulumi up --yes` (with expectNoChanges: `--expect-no-changes`, failing if anything changes). */
  up(opts?: { expectNoChanges?: boolean }): Promise<StackRun>;
  /** `pulumi refresh --yes`. */
  refresh(): Promise<StackRun>;
  /** `pulumi destroy --yes`. */
  destroy(): Promise<StackRun>;
  /** `pulumi config set [--secret] <key> <value>` (key namespaced). */
  setConfig(key: string, value: string, secret?: boolean): Promise<void>;
  /** Releases what the stack holds (plugin processes, the temporary backend). */
  close(): Promise<void>;
}

/**
 * True when the Pulumi CLI can be used: on PATH, or built by tools/pulumi-cli/build.sh, which
 * this then puts on PATH (harness/pulumiCli.ts). Never builds it.
 */
export function hasPulumiCli(): boolean {
  return useCli().found;
}

/** `pulumi-nodejs:dynamic/reviewadmin:OrganizationMembers` -> `OrganizationMembers`. */
export function shortType(type: string): string {
  return type.slice(type.lastIndexOf(":") + 1);
}

function withoutProvider(props: Record<string, any> | undefined): Record<string, unknown> | undefined {
  if (!props) return undefined;
  const { [PROVIDER_KEY]: _provider, ...rest } = props;
  return rest;
}

/** Runs the program through the bundled harness: the real dynamic-provider plugin, no CLI. */
export function harnessStack(args: StackArgs): Stack {
  const program = path.resolve(args.program);
  const stack = new ProgramStack({
    cwd: path.resolve(args.cwd ?? path.dirname(program)),
    project: args.project,
    stack: args.stack,
    config: args.config,
    secretConfigKeys: args.secretConfigKeys ?? [],
  });
  const run = async (kind: StackRun["kind"], fn: () => ReturnType<ProgramStack["refresh"]>): Promise<StackRun> => {
    const before = new Map(stack.state);
    const result = await fn();
    return {
      kind,
      outputs: result.outputs,
      messages: result.logs.map((l) => l.line),
      steps: result.steps.map((s) => ({
        op: s.op,
        type: shortType(s.type),
        name: s.name,
        urn: s.urn,
        before: withoutProvider(before.get(s.urn)?.outputs),
        after: withoutProvider(stack.state.get(s.urn)?.outputs),
      })),
    };
  };
  return {
    engine: "harness",
    up: (opts = {}) => run("up", () => stack.up(program, { expectNoChanges: opts.expectNoChanges })),
    refresh: () => run("refresh", () => stack.refresh()),
    destroy: () => run("destroy", () => stack.destroy()),
    setConfig: async (key, value, secret = false) => stack.setConfig(key, value, secret),
    close: () => stack.close(),
  };
}

/** Engine ops of a replacement, reported as one "replace" step. */
const REPLACE_OPS = new Set<automation.OpType>(["replace", "create-replacement", "delete-replaced"]);

/** The steps of a CLI run, from its engine events (the Stack and provider resources left out). */
function stepsOf(kind: StackRun["kind"], events: automation.StepEventMetadata[]): StackStep[] {
  const byUrn = new Map<string, StackStep>();
  for (const m of events) {
    if (m.type === "pulumi:pulumi:Stack" || m.type.startsWith("pulumi:providers:")) continue;
    const before = withoutProvider(m.old?.outputs);
    const after = withoutProvider(m.new?.outputs);
    let op: StepOp;
    if (kind === "refresh") {
      // A refresh step without a new state is a resource the provider reported gone.
      if (!m.new || m.op === "delete") op = "refresh-gone";
      else op = JSON.stringify(sortKeys(before)) === JSON.stringify(sortKeys(after)) ? "refresh-same" : "refresh-changed";
    } else if (REPLACE_OPS.has(m.op)) op = "replace";
    else if (m.op === "create" || m.op === "update" || m.op === "same" || m.op === "delete" || m.op === "read" || m.op === "import")
      op = m.op;
    else continue; // discard, remove-pending-replace...: nothing a reader needs
    const prior = byUrn.get(m.urn);
    byUrn.set(m.urn, {
      op,
      type: shortType(m.type),
      name: m.urn.split("::")[3] ?? m.urn,
      urn: m.urn,
      before: prior?.before ?? before,
      after: op === "refresh-gone" || op === "delete" ? undefined : (after ?? prior?.after),
    });
  }
  return [...byUrn.values()];
}

/**
 * Runs the program with the real Pulumi CLI through the Automation API: a project in a temporary
 * folder whose `main` is the program's entry file (so nothing is written next to the program),
 * state in a local file backend in the same folder, secrets under a passphrase. No login.
 */
export async function cliStack(args: StackArgs): Promise<Stack> {
  const program = path.resolve(args.program);
  if (args.cwd && path.resolve(args.cwd) !== path.dirname(program)) {
    throw new Error(`cliStack: the CLI runs a program in the folder of its entry file (${path.dirname(program)}), not in ${args.cwd}`);
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-pulumi-"));
  const backend = path.join(tmp, "backend");
  const workDir = path.join(tmp, "project");
  fs.mkdirSync(backend);
  fs.mkdirSync(workDir);
  const envVars = {
    PULUMI_BACKEND_URL: `file://${backend}`,
    PULUMI_CONFIG_PASSPHRASE: "reviewadmin-local-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    // A .ts program is type-checked by `npm run typecheck`; ts-node checking it again costs seconds per run.
    PULUMI_NODEJS_TRANSPILE_ONLY: "true",
  };
  let stack: automation.Stack;
  try {
    stack = await automation.LocalWorkspace.createOrSelectStack(
      { stackName: args.stack, workDir },
      {
        envVars,
        projectSettings: {
          name: args.project,
          // A .ts entry file is compiled by ts-node (the language host's `typescript` option).
          runtime: { name: "nodejs", options: { typescript: program.endsWith(".ts") } },
          // An absolute file: the engine runs the program in that file's folder.
          main: program,
        },
      },
    );
    const secret = new Set(args.secretConfigKeys ?? []);
    await stack.setAllConfig(
      Object.fromEntries(Object.entries(args.config).map(([key, value]) => [key, { value, secret: secret.has(key) }])),
    );
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }

  const events = () => {
    const seen: automation.StepEventMetadata[] = [];
    const messages: string[] = [];
    const onEvent = (e: automation.EngineEvent) => {
      if (e.resOutputsEvent?.metadata) seen.push(e.resOutputsEvent.metadata);
      if (e.diagnosticEvent?.message) messages.push(e.diagnosticEvent.message.trimEnd());
    };
    return { seen, messages, onEvent };
  };
  const common = { color: "never" as const };
  return {
    engine: "cli",
    async up(opts = {}) {
      const e = events();
      const res = await stack.up({ ...common, onEvent: e.onEvent, expectNoChanges: opts.expectNoChanges });
      const outputs = Object.fromEntries(Object.entries(res.outputs).map(([k, o]) => [k, o.value]));
      return { kind: "up", steps: stepsOf("up", e.seen), outputs, messages: e.messages };
    },
    async refresh() {
      const e = events();
      await stack.refresh({ ...common, onEvent: e.onEvent });
      return { kind: "refresh", steps: stepsOf("refresh", e.seen), outputs: {}, messages: e.messages };
    },
    async destroy() {
      const e = events();
      await stack.destroy({ ...common, onEvent: e.onEvent });
      return { kind: "destroy", steps: stepsOf("destroy", e.seen), outputs: {}, messages: e.messages };
    },
    async setConfig(key, value, secret = false) {
      await stack.setConfig(key, { value, secret });
    },
    async close() {
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/**
 * The fields that differ between two sets of outputs, one line each, with a path into nested
 * values: `members["alan@northwind.example"].permissions: [] -> ["ORG_ADMIN"]`.
 */
export function fieldChanges(before: unknown, after: unknown, at = ""): string[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) =>
      fieldChanges(before[k], after[k], at + (/^[A-Za-z_$][\w$]*$/.test(k) ? (at ? `.${k}` : k) : `[${JSON.stringify(k)}]`)),
    );
  }
  // Lists of records of the same length, item by item (a list of plain values is one value).
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length && [...before, ...after].every(isObject)) {
    return before.flatMap((b, i) => fieldChanges(b, after[i], `${at}[${i}]`));
  }
  if (JSON.stringify(sortKeys(before)) === JSON.stringify(sortKeys(after))) return [];
  return [`${at || "(value)"}: ${show(before)} -> ${show(after)}`];
}

function show(v: unknown): string {
  if (v === undefined) return "(absent)";
  const text = JSON.stringify(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
