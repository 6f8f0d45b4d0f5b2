/**
 * Test harness: runs a whole Pulumi program (a function, or an example folder's index) under
 * `pulumi.runtime.setMocks` and forwards every dynamic resource (`pulumi-nodejs:dynamic...`) to
 * the REAL dynamic-provider plugin (see ./plugin.ts), keeping a stack state between runs. A test
 * can then do `up`, `up` again (no changes), `preview`, `refresh` and `destroy` like the CLI.
 *
 * How one run works (what we learned from @pulumi/pulumi 3.270):
 * - Repeated runs in one process: we do what the Automation API's inline-program server does
 *   (automation/server.js `run`): `withLocalStorage` (runtime/state.js) gives each run a fresh
 *   AsyncLocalStorage store (settings, config, stack resource, pending registrations, log error
 *   count), then `setMocks` (which calls `settings.resetOptions` on that store), `setAllConfig`,
 *   `runInPulumiStack(program)`, and `runtime.disconnect()`, whose `waitForRPCs` waits until
 *   every registration (hence every plugin call we make for it) has finished. Nothing leaks into
 *   the process-wide store the test itself uses, and setMocks can be called any number of times.
 * - `runInPulumiStack` registers the `pulumi:pulumi:Stack` root resource and returns the stack
 *   exports. Resources parented to the stack get URNs WITHOUT the stack type, like the engine
 *   (the SDK's MockMonitor would write `pulumi:pulumi:Stack$type`): we override its URN builder.
 * - MockResourceArgs carries neither the parent nor resource options (deleteBeforeReplace,
 *   protect, ignoreChanges...). So the harness installs a subclass of the SDK's MockMonitor (after
 *   setMocks) that handles dynamic resources from the raw RegisterResourceRequest, wire values
 *   included (unknowns as the sentinel string, secrets wrapped, resource references), and sends
 *   everything else to the ordinary mocks (which echo inputs unless `opts.mocks` says otherwise).
 * - A mock that throws makes the SDK reject every output of the resource: nobody awaits most of
 *   them, so the test process gets a burst of unhandled rejections (vitest fails the file). The
 *   engine instead stops at the first failed step and fails the run. We do the same: the failed
 *   registration answers "unknown outputs" (RegisterResourceResponse.unknown), later dynamic
 *   registrations are skipped (no plugin calls, state untouched), deletes are skipped, and the
 *   run throws a {@link RunError} carrying the provider's messages and the partial result.
 * - A program that throws is caught INSIDE the stack's init function for the same reason (thrown
 *   out of `runInPulumiStack`'s init, the Stack resource's promises reject unhandled).
 * - Each run uses a FRESH plugin process (like the CLI: the provider's per-run caches are reset),
 *   Configured with the run's stack config, and closes it at the end. Starting one costs ~0.7 s
 *   (loading @pulumi/pulumi), so the stack keeps one spare, unused process booting in the
 *   background (started when the previous run took its plugin); a run takes it and sends
 *   Configure with its own config before any other call (the plugin only stores Configure's
 *   args, and the provider's configure() runs at its first CRUD call). `prestart: false` turns
 *   this off; a spare is dropped if process.env changed since it was spawned. close() kills it.
 * - Only dynamic resources are stepped and kept in `state`; components, the Stack and other
 *   custom resources just go through the mocks. Resource options honoured for dynamic resources:
 *   deleteBeforeReplace, protect, retainOnDelete, ignoreChanges and replaceOnChanges (top-level
 *   keys only), additionalSecretOutputs, import (which fails for dynamic resources, as in the
 *   engine: Read without state has no `__provider`). `Resource.get` / `{id}` reads call Read.
 * - Deletes (removed resources, destroy) go dependents first (recorded dependencies and parents),
 *   otherwise latest first; replaced resources (create-before-delete) are deleted at the end of
 *   the run. The state keeps resources in creation order (a DBR replacement moves to the end).
 * - Secrets: the dynamic plugin does not accept secrets, so the engine unwraps them before each
 *   call and marks again as secret the outputs whose top-level key was a secret input (plus
 *   `additionalSecretOutputs`). We do the same. Resource references in inputs are sent as the
 *   resource's id (custom) or urn (component), as the engine does for providers without
 *   resource-reference support.
 * - Programs given as a path are re-evaluated on every run: `.ts` by `import(url?run=N)` (vitest
 *   transforms TS and keys modules by URL, query included), `.js`/`.cjs` by `require` after
 *   deleting the file from `require.cache`. Only the index itself is re-evaluated: local helper
 *   modules it imports stay cached, so declare resources in the index (or in functions it calls).
 *   The index's exports are the stack outputs; a default-exported function is called instead and
 *   its result used, as the Pulumi Node.js host does.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import * as pulumi from "@pulumi/pulumi";
import * as resproto from "@pulumi/pulumi/proto/resource_pb";
import { MockMonitor, type MockCallArgs, type MockResourceArgs, type Mocks } from "@pulumi/pulumi/runtime/mocks";
import { PluginError, startPlugin, type DiffResult, type LogLine, type Plugin, type PluginOptions } from "./pluginDriver";
import { checkStep, createStep, type StepOp } from "./steps";
import {
  changedKeys,
  fromStruct,
  isObject,
  toProviderInputs,
  toStruct,
  toWireOutputs,
  type Props,
} from "./wire";

// Internal SDK modules (no "exports" map in @pulumi/pulumi, so deep requires are allowed).
const sdkRequire = createRequire(__filename);
const sdkState = sdkRequire("@pulumi/pulumi/runtime/state") as {
  withLocalStorage<T>(cb: () => Promise<T>): Promise<T>;
  getStore(): { settings: { monitor: unknown } };
};

/** Type tokens of dynamic resources: `pulumi-nodejs:dynamic:<T>` or `pulumi-nodejs:dynamic/<module>:<T>`. */
export function isDynamicType(type: string): boolean {
  return /^pulumi-nodejs:dynamic[:/]/.test(type);
}

/** A Pulumi program: a function returning the stack exports, or a path to a folder/file. */
export type ProgramFn = () => Promise<Record<string, any> | void> | Record<string, any> | void;
export type Program = ProgramFn | string;

/** Options of {@link ProgramStack}: those of startPlugin (cwd: where the plugin runs) plus mocks. */
export interface ProgramStackOptions extends PluginOptions {
  /** Mocks for non-dynamic resources and invokes; default: echo inputs (custom ids `<name>_id`). */
  mocks?: Partial<Mocks>;
  /**
   * Start the next run's plugin process in the background when a run ends (default true): a
   * plugin takes ~0.7 s to start. The spare is a fresh, unused process; it is configured with the
   * run's config when taken, and dropped if process.env changed meanwhile. Call close() to kill it.
   */
  prestart?: boolean;
}

/** Per-run options. */
export interface RunOptions {
  /** Config for this run only, merged over the stack config. */
  config?: Record<string, string>;
  /** Extra secret config keys for this run. */
  secretConfigKeys?: string[];
  /** Like `pulumi up --expect-no-changes`: fail the run if any step is not "same". */
  expectNoChanges?: boolean;
}

/** One resource of the stack state (dynamic resources only). */
export interface StateEntry {
  urn: string;
  type: string;
  name: string;
  id: string;
  /** Checked inputs, `__provider` included, secrets unwrapped. */
  inputs: Props;
  /** Outputs, `__provider` included, secrets unwrapped. */
  outputs: Props;
  parent?: string;
  dependencies: string[];
  protect: boolean;
  retainOnDelete: boolean;
  /** Top-level keys stored as secrets (secret inputs and additionalSecretOutputs). */
  secretKeys: string[];
}

/** One step the run took (or would take, in preview). */
export interface Step {
  urn: string;
  type: string;
  name: string;
  op: StepOp;
  id?: string;
  /** The provider's diff, when the resource existed. */
  diff?: DiffResult;
  /** Keys whose value changed (update/replace: from the diff or the input comparison; refresh: outputs). */
  changedKeys?: string[];
  /** Refresh: stored input keys that Read rewrote (ReadResult.inputs). */
  changedInputKeys?: string[];
}

/** Result of one run. */
export interface RunResult {
  kind: "up" | "preview" | "refresh" | "destroy";
  /** Stack exports (up/preview); {} for refresh/destroy. */
  outputs: Record<string, any>;
  steps: Step[];
  /** Number of steps other than "same"/"refresh-same". */
  changes: number;
  /** What the plugin printed during the run (provider console output, pulumi.log, stacks). */
  logs: LogLine[];
  /** Error messages (empty on success). */
  errors: string[];
}

/** Thrown when a run fails; `result` is what happened until then, `errors` the messages. */
export class RunError extends Error {
  constructor(
    readonly result: RunResult,
    readonly causes: unknown[],
  ) {
    super(`${result.kind} failed:\n${result.errors.map((e) => `  ${e}`).join("\n")}`);
    this.name = "RunError";
  }
}

// ---------------------------------------------------------------------------------------------
// Value helpers

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Builds the URN the engine would: the parent's qualified type is prefixed, except the root stack's. */
function engineUrn(stack: string, project: string, parent: string | undefined, type: string, name: string): string {
  let qualified = type;
  if (parent) {
    const parentType = parent.split("::")[2];
    if (parentType && parentType !== "pulumi:pulumi:Stack") qualified = `${parentType}$${type}`;
  }
  return `urn:pulumi:${stack}::${project}::${qualified}::${name}`;
}

// ---------------------------------------------------------------------------------------------
// Loading programs from a path

function resolveProgramFile(p: string): string {
  const abs = path.resolve(p);
  if (fs.existsSync(abs) && fs.statSync(abs).isDirectory()) {
    for (const f of ["index.ts", "index.mts", "index.js", "index.cjs", "index.mjs"]) {
      const file = path.join(abs, f);
      if (fs.existsSync(file)) return file;
    }
    throw new Error(`no index.ts/index.js in ${abs}`);
  }
  if (!fs.existsSync(abs)) throw new Error(`program not found: ${abs}`);
  return abs;
}

let loadCounter = 0;

/** A program function that evaluates the file anew on each call (see header). */
export function programFromPath(p: string): ProgramFn {
  const file = resolveProgramFile(p);
  return async () => {
    let mod: any;
    if (/\.c?js$/.test(file)) {
      const req = createRequire(file);
      delete req.cache[file];
      mod = req(file);
    } else {
      mod = await import(/* @vite-ignore */ `${pathToFileURL(file).href}?run=${++loadCounter}`);
    }
    if (typeof mod === "function") return await mod();
    if (mod && typeof mod.default === "function") return await mod.default();
    const keys = Object.keys(mod ?? {}).filter((k) => k !== "default" && k !== "__esModule" && k !== "module.exports");
    // A CommonJS module seen through import(): its exports are the default.
    if (keys.length === 0 && isObject(mod?.default)) return { ...mod.default };
    return Object.fromEntries(keys.map((k) => [k, mod[k]]));
  };
}

// ---------------------------------------------------------------------------------------------
// One deployment (up or preview)

/** What the harness reads off a RegisterResourceRequest for a dynamic resource. */
interface Registration {
  urn: string;
  type: string;
  name: string;
  parent?: string;
  /** Wire-format inputs (`__provider` included). */
  wire: Props;
  importId?: string;
  deleteBeforeReplace: boolean;
  protect: boolean;
  retainOnDelete: boolean;
  ignoreChanges: string[];
  replaceOnChanges: string[];
  additionalSecretOutputs: string[];
  dependencies: string[];
}

/** Lazily started plugin for one run (possibly taken from the stack's pre-started spare). */
class RunPlugin {
  private started: Promise<Plugin> | undefined;

  constructor(private readonly start: () => Promise<Plugin>) {}

  get(): Promise<Plugin> {
    return (this.started ??= this.start());
  }

  /** Starts it now, without waiting (failures surface on first use). */
  warmUp(): void {
    this.get().catch(() => {});
  }

  async logs(): Promise<LogLine[]> {
    if (!this.started) return [];
    try {
      return (await this.started).logs;
    } catch {
      return [];
    }
  }

  async close(): Promise<void> {
    if (!this.started) return;
    let p: Plugin;
    try {
      p = await this.started;
    } catch {
      return;
    }
    await p.close();
    // Lines printed just before the kill may still be in the pipe: let them arrive.
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Debug aid: PROGRAM_HARNESS_TRACE=1 prints what the harness does with plugins, and run times. */
function trace(msg: string): void {
  if (process.env.PROGRAM_HARNESS_TRACE) process.stderr.write(`[program-harness] ${msg}\n`);
}

/** Spare plugins not yet closed, killed if the process exits without ProgramStack.close(). */
const liveSpares = new Set<Plugin>();
let exitHookInstalled = false;
function trackSpare(p: Plugin): void {
  liveSpares.add(p);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Plugin.close() kills the child synchronously before its first await.
    process.once("exit", () => liveSpares.forEach((sp) => void sp.close().catch(() => {})));
  }
}

/** Snapshot of the environment a plugin inherits (a spare is only used if it did not change). */
function envKey(extra: Record<string, string | undefined> | undefined): string {
  return JSON.stringify([process.env, extra ?? {}]);
}

/** Engine-like deletion order: dependents before their dependencies, otherwise latest first. */
function deletionOrder(entries: StateEntry[]): StateEntry[] {
  const remaining = [...entries];
  const order: StateEntry[] = [];
  while (remaining.length > 0) {
    let pick = remaining.length - 1;
    for (let i = remaining.length - 1; i >= 0; i--) {
      const urn = remaining[i]!.urn;
      const needed = remaining.some((o, j) => j !== i && (o.dependencies.includes(urn) || o.parent === urn));
      if (!needed) {
        pick = i;
        break;
      }
    }
    order.push(remaining.splice(pick, 1)[0]!);
  }
  return order;
}

class Deployment {
  readonly steps: Step[] = [];
  readonly errors: unknown[] = [];
  /** State built by this run, in the order resources completed. */
  readonly newState = new Map<string, StateEntry>();
  readonly registered = new Set<string>();
  /** Old states superseded by a create-before-delete replacement, deleted at the end. */
  readonly replacedOld: StateEntry[] = [];
  failed = false;

  constructor(
    readonly old: Map<string, StateEntry>,
    readonly plugin: RunPlugin,
    readonly preview: boolean,
  ) {}

  fail(e: unknown): void {
    this.failed = true;
    this.errors.push(e);
  }

  private async check(p: Plugin, urn: string, olds: Props, news: Props): Promise<Props> {
    return (await checkStep(p, urn, olds, news)).inputs;
  }

  /** Handles one dynamic registration; returns the id and wire outputs for the SDK, or undefined when skipped/failed. */
  async register(r: Registration): Promise<{ id: string; outputs: Props } | undefined> {
    if (this.failed) return undefined; // the engine stops issuing steps after a failure
    try {
      if (this.registered.has(r.urn)) throw new Error(`Duplicate resource URN '${r.urn}'; try giving it a unique name`);
      this.registered.add(r.urn);
      const p = await this.plugin.get();
      const { inputs: goal, secretKeys: secretInputs } = toProviderInputs(r.wire);
      const secretKeys = [...new Set([...secretInputs, ...r.additionalSecretOutputs])];
      const old = this.old.get(r.urn);
      const base = {
        urn: r.urn,
        type: r.type,
        name: r.name,
        parent: r.parent,
        dependencies: r.dependencies,
        protect: r.protect,
        retainOnDelete: r.retainOnDelete,
        secretKeys,
      };
      const step = (op: StepOp, extra: Partial<Step> = {}) =>
        this.steps.push({ urn: r.urn, type: r.type, name: r.name, op, ...extra });
      const done = (id: string, inputs: Props, outputs: Props) => {
        if (!this.preview) this.newState.set(r.urn, { ...base, id, inputs, outputs });
        return { id, outputs: toWireOutputs(outputs, secretKeys) };
      };

      const news = { ...goal };
      if (old) {
        // ignoreChanges (top-level keys): keep the old input value.
        for (const k of r.ignoreChanges) {
          if (k in old.inputs) news[k] = old.inputs[k];
          else delete news[k];
        }
      }

      if (!old) {
        if (r.importId) {
          // The engine's import step: Read with no state (the dynamic plugin then has no __provider).
          const read = await p.read(r.importId, r.urn, {}, {});
          if (read.id === undefined) throw new Error(`${r.urn}: resource '${r.importId}' does not exist`);
          const checked = await this.check(p, r.urn, read.inputs ?? {}, news);
          step("import", { id: read.id });
          return done(read.id, checked, read.outs);
        }
        const checked = await this.check(p, r.urn, {}, news);
        if (this.preview) {
          step("create");
          return { id: "", outputs: toWireOutputs(checked, secretKeys) };
        }
        const created = await this.create(p, r.urn, checked, base);
        step("create", { id: created.id });
        return done(created.id, checked, created.outs);
      }

      const checked = await this.check(p, r.urn, old.inputs, news);
      const diff = await p.diff(old.id, r.urn, old.outputs, checked, old.inputs);
      const inputChanges = changedKeys(old.inputs, checked);
      // DIFF_UNKNOWN: the engine compares the inputs itself (`__provider` included).
      let changed = diff.changes ?? inputChanges.length > 0;
      let replace = changed && diff.replaces.length > 0;
      if (changed && r.replaceOnChanges.some((k) => k === "*" || inputChanges.includes(k))) replace = true;
      const keys = diff.diffs.length > 0 ? diff.diffs : inputChanges;

      if (!changed) {
        step("same", { id: old.id, diff });
        // A "same" step records the new inputs and keeps the old outputs.
        return done(old.id, checked, old.outputs);
      }
      if (!replace) {
        step("update", { id: old.id, diff, changedKeys: keys });
        if (this.preview) return { id: old.id, outputs: toWireOutputs({ ...old.outputs, ...checked }, secretKeys) };
        let updated;
        try {
          updated = await p.update(old.id, r.urn, old.outputs, checked, old.inputs);
        } catch (e) {
          // Partial failure: the engine stores the outputs the provider reported.
          if (e instanceof PluginError && e.initFailure) {
            this.newState.set(r.urn, { ...base, id: old.id, inputs: checked, outputs: e.initFailure.properties });
          }
          throw e;
        }
        return done(old.id, checked, updated.outs);
      }

      // Replacement: the engine re-checks with no olds, so defaults are recomputed.
      if (old.protect) throw new Error(`${r.urn}: resource is protected; cannot replace it`);
      const rechecked = await this.check(p, r.urn, {}, news);
      if (this.preview) {
        step("replace", { id: old.id, diff, changedKeys: keys });
        return { id: "", outputs: toWireOutputs(rechecked, secretKeys) };
      }
      const deleteFirst = diff.deleteBeforeReplace || r.deleteBeforeReplace;
      if (deleteFirst) {
        if (!old.retainOnDelete) await p.delete(old.id, r.urn, old.outputs, old.inputs);
        this.old.delete(r.urn); // gone: a later failure must not keep it
      }
      const created = await this.create(p, r.urn, rechecked, base);
      // Create-before-delete: the old one is deleted at the end of the run, like the engine's
      // delete-replaced steps.
      if (!deleteFirst) this.replacedOld.push(old);
      step("replace", { id: created.id, diff, changedKeys: keys });
      return done(created.id, rechecked, created.outs);
    } catch (e) {
      this.fail(e);
      return undefined;
    }
  }

  /** Create; a partial failure (error with id) is recorded in state, as the engine does. */
  private create(p: Plugin, urn: string, inputs: Props, base: Omit<StateEntry, "id" | "inputs" | "outputs">) {
    return createStep(p, urn, inputs, (id, outputs) => this.newState.set(urn, { ...base, id, inputs, outputs }));
  }

  /** `Resource.get`-style read of a dynamic resource (not managed: not stored in state). */
  async read(urn: string, type: string, name: string, id: string, wire: Props): Promise<Props | undefined> {
    if (this.failed) return undefined;
    try {
      const p = await this.plugin.get();
      const { inputs } = toProviderInputs(wire);
      const res = await p.read(id, urn, inputs, inputs);
      if (res.id === undefined) throw new Error(`${urn}: resource '${id}' does not exist`);
      this.steps.push({ urn, type, name, op: "read", id: res.id });
      return res.outs;
    } catch (e) {
      this.fail(e);
      return undefined;
    }
  }

  /** After the program: delete what was not registered (and replaced olds), in reverse order. */
  async finish(): Promise<void> {
    const gone = deletionOrder([...this.old.values()].filter((s) => !this.registered.has(s.urn)));
    if (this.preview) {
      for (const s of gone) this.steps.push({ urn: s.urn, type: s.type, name: s.name, op: "delete", id: s.id });
      return;
    }
    if (this.replacedOld.length > 0) {
      // Superseded by their replacements: deleted even when the run failed.
      const p = await this.plugin.get();
      for (const s of [...this.replacedOld].reverse()) {
        try {
          if (!s.retainOnDelete) await p.delete(s.id, s.urn, s.outputs, s.inputs);
        } catch (e) {
          this.fail(e);
        }
      }
    }
    if (this.failed) return;
    if (gone.length === 0) return;
    const p = await this.plugin.get();
    for (const s of gone) {
      try {
        if (s.protect) throw new Error(`${s.urn}: resource is protected; cannot delete it`);
        if (!s.retainOnDelete) await p.delete(s.id, s.urn, s.outputs, s.inputs);
        this.old.delete(s.urn);
        this.steps.push({ urn: s.urn, type: s.type, name: s.name, op: "delete", id: s.id });
      } catch (e) {
        this.fail(e);
        return;
      }
    }
  }

  /**
   * The state after the run: existing resources keep their position (new values if the run
   * stepped them, old ones if it failed before), new resources follow in completion order.
   */
  resultState(): Map<string, StateEntry> {
    const out = new Map<string, StateEntry>();
    for (const [urn, s] of this.old) out.set(urn, this.newState.get(urn) ?? s);
    for (const [urn, s] of this.newState) if (!out.has(urn)) out.set(urn, s);
    return out;
  }
}

// ---------------------------------------------------------------------------------------------
// The mock monitor

const defaultMocks: Mocks = {
  newResource: (args: MockResourceArgs) => ({ id: args.custom ? `${args.name}_id` : undefined, state: args.inputs }),
  call: (args: MockCallArgs) => args.inputs,
};

/**
 * The SDK's MockMonitor, with engine URNs and dynamic resources sent to the plugin. (Built on an
 * `any` base: the d.ts declares `newUrn` private.)
 */
const MockMonitorBase: any = MockMonitor;

class HarnessMonitor extends MockMonitorBase {
  constructor(
    mocks: Mocks,
    private readonly deployment: Deployment,
    private readonly project: string,
    private readonly stack: string,
  ) {
    super(mocks);
  }

  newUrn(parent: string | undefined, type: string, name: string): string {
    return engineUrn(this.stack, this.project, parent || undefined, type, name);
  }

  async registerResource(req: any, callback: (err: any, res: any) => void): Promise<void> {
    const type: string = req.getType();
    if (!req.getCustom() || !isDynamicType(type)) return super.registerResource(req, callback);
    try {
      const name: string = req.getName();
      const parent: string = req.getParent();
      const urn = this.newUrn(parent, type, name);
      const result = await this.deployment.register({
        urn,
        type,
        name,
        parent: parent || undefined,
        wire: fromStruct(req.getObject()),
        importId: req.getImportid() || undefined,
        deleteBeforeReplace: req.getDeletebeforereplace(),
        protect: req.getProtect() ?? false,
        retainOnDelete: req.getRetainondelete() ?? false,
        ignoreChanges: req.getIgnorechangesList(),
        replaceOnChanges: req.getReplaceonchangesList(),
        additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
        dependencies: req.getDependenciesList(),
      });
      const res = new resproto.RegisterResourceResponse();
      res.setUrn(urn);
      if (result) {
        res.setId(result.id);
        res.setObject(toStruct(result.outputs));
        this.resources.set(urn, { urn, id: result.id || null, state: result.outputs });
      } else {
        // Failed or skipped: all outputs unknown (never a rejection, see header).
        res.setId("");
        res.setObject(toStruct({}));
        res.setUnknown(true);
      }
      callback(null, res);
    } catch (e) {
      callback(e, undefined);
    }
  }

  async readResource(req: any, callback: (err: any, res: any) => void): Promise<void> {
    const type: string = req.getType();
    if (!isDynamicType(type)) return super.readResource(req, callback);
    try {
      const name: string = req.getName();
      const urn = this.newUrn(req.getParent(), type, name);
      const outs = await this.deployment.read(urn, type, name, req.getId(), fromStruct(req.getProperties()));
      this.resources.set(urn, { urn, id: req.getId(), state: outs ?? {} });
      const res = new resproto.ReadResourceResponse();
      res.setUrn(urn);
      res.setProperties(toStruct(outs ?? {}));
      callback(null, res);
    } catch (e) {
      callback(e, undefined);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// ProgramStack

function countChanges(steps: Step[]): number {
  return steps.filter((s) => s.op !== "same" && s.op !== "refresh-same").length;
}

/**
 * A stack: config plus the state of its dynamic resources, and CLI-like operations on it.
 * Runs are serialized (one at a time per stack).
 */
export class ProgramStack {
  /** State of the dynamic resources, in creation order. */
  state = new Map<string, StateEntry>();
  /** Stack config (keys namespaced, e.g. "reviewadmin:baseUrl"): sent to the program and the plugin. */
  config: Record<string, string>;
  secretConfigKeys: string[];
  readonly project: string;
  readonly stack: string;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private spare: { plugin: Promise<Plugin>; env: string } | undefined;

  constructor(readonly opts: ProgramStackOptions) {
    this.project = opts.project ?? "test-project";
    this.stack = opts.stack ?? "test";
    this.config = { ...(opts.config ?? {}) };
    this.secretConfigKeys = [...(opts.secretConfigKeys ?? [])];
    this.startSpare();
  }

  /** Like `pulumi config set [--secret]`. */
  setConfig(key: string, value: string, secret = false): void {
    this.config[key] = value;
    this.secretConfigKeys = this.secretConfigKeys.filter((k) => k !== key);
    if (secret) this.secretConfigKeys.push(key);
  }

  /** Deploys the program (`pulumi up --yes`). Throws {@link RunError} on failure. */
  up(program: Program, opts: RunOptions = {}): Promise<RunResult> {
    return this.serial(() => this.deploy("up", program, opts));
  }

  /** `pulumi preview`: check and diff only, the state is not changed. */
  preview(program: Program, opts: RunOptions = {}): Promise<RunResult> {
    return this.serial(() => this.deploy("preview", program, opts));
  }

  /** `pulumi refresh --yes`: reads every resource and updates the state. */
  refresh(opts: RunOptions = {}): Promise<RunResult> {
    return this.serial(() => this.doRefresh(opts));
  }

  /** `pulumi destroy --yes`: deletes everything, in reverse creation order. */
  destroy(opts: RunOptions = {}): Promise<RunResult> {
    return this.serial(() => this.doDestroy(opts));
  }

  /** Waits for a running run and kills the pre-started spare plugin. Always call it (afterAll). */
  async close(): Promise<void> {
    this.closed = true;
    await this.queue.catch(() => {});
    await this.dropSpare();
  }

  /** The state entry of the resource named `name` (optionally of type `type`). */
  find(name: string, type?: string): StateEntry | undefined {
    return [...this.state.values()].find((s) => s.name === name && (type === undefined || s.type === type));
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error("ProgramStack is closed"));
    const timed = async () => {
      const t0 = Date.now();
      try {
        return await fn();
      } finally {
        trace(`run took ${Date.now() - t0} ms`);
      }
    };
    const run = this.queue.catch(() => {}).then(timed);
    this.queue = run;
    return run;
  }

  private pluginOptions(opts: RunOptions): PluginOptions {
    return {
      ...this.opts,
      project: this.project,
      stack: this.stack,
      config: { ...this.config, ...(opts.config ?? {}) },
      secretConfigKeys: [...this.secretConfigKeys, ...(opts.secretConfigKeys ?? [])],
    };
  }

  /** The plugin for one run: the spare if usable (re-configured with this run's config), else a new one. */
  private pluginFor(opts: RunOptions): RunPlugin {
    const popts = this.pluginOptions(opts);
    return new RunPlugin(async () => {
      const spare = this.spare;
      this.spare = undefined;
      // Boot the next run's plugin while this run works.
      this.startSpare();
      if (spare && spare.env === envKey(this.opts.env)) {
        try {
          const p = await spare.plugin;
          liveSpares.delete(p);
          await p.configure(popts.config ?? {}, popts.secretConfigKeys ?? []);
          trace("plugin: using the spare");
          return p;
        } catch {
          // Fall through: start a new one.
        }
      } else if (spare) {
        void spare.plugin.then((p) => (liveSpares.delete(p), p.close())).catch(() => {});
      }
      trace(`plugin: starting a new one (spare ${spare ? "unusable" : "absent"})`);
      return startPlugin(popts);
    });
  }

  private startSpare(): void {
    if (this.opts.prestart === false || this.closed || this.spare) return;
    const plugin = startPlugin(this.pluginOptions({}));
    plugin.then(trackSpare, () => {});
    this.spare = { plugin, env: envKey(this.opts.env) };
  }

  private async dropSpare(): Promise<void> {
    const spare = this.spare;
    this.spare = undefined;
    if (!spare) return;
    try {
      const p = await spare.plugin;
      liveSpares.delete(p);
      await p.close();
    } catch {
      // never started
    }
  }

  private async finishRun(
    kind: RunResult["kind"],
    plugin: RunPlugin,
    steps: Step[],
    errors: unknown[],
    outputs: Record<string, any>,
    opts: RunOptions,
  ): Promise<RunResult> {
    await plugin.close();
    const result: RunResult = {
      kind,
      outputs,
      steps,
      changes: countChanges(steps),
      logs: await plugin.logs(),
      errors: errors.map(message),
    };
    if (errors.length === 0 && opts.expectNoChanges && result.changes > 0) {
      const msg = `no changes were expected but changes occurred: ${steps
        .filter((s) => s.op !== "same" && s.op !== "refresh-same")
        .map((s) => `${s.op} ${s.urn}`)
        .join(", ")}`;
      errors.push(new Error(msg));
      result.errors.push(msg);
    }
    if (errors.length > 0) throw new RunError(result, errors);
    return result;
  }

  private async deploy(kind: "up" | "preview", program: Program, opts: RunOptions): Promise<RunResult> {
    const preview = kind === "preview";
    const fn = typeof program === "string" ? programFromPath(program) : program;
    const plugin = this.pluginFor(opts);
    // Start the plugin while the program runs, when there is or may be a dynamic resource.
    plugin.warmUp();
    const deployment = new Deployment(new Map(this.state), plugin, preview);
    const config = { ...this.config, ...(opts.config ?? {}) };
    const secretKeys = [...this.secretConfigKeys, ...(opts.secretConfigKeys ?? [])];
    const mocks: Mocks = { ...defaultMocks, ...(this.opts.mocks ?? {}) };
    let outputs: Record<string, any> = {};

    try {
      await sdkState.withLocalStorage(async () => {
        await pulumi.runtime.setMocks(mocks, this.project, this.stack, preview);
        // Replace the monitor setMocks installed (in this run's store) with ours.
        sdkState.getStore().settings.monitor = new HarnessMonitor(mocks, deployment, this.project, this.stack);
        pulumi.runtime.setAllConfig(config, secretKeys);
        // A program error is caught inside the stack's init: thrown out of it, the SDK rejects
        // promises nobody awaits (unhandled rejections). The engine fails the run the same way.
        const init = async () => {
          try {
            return (await fn()) ?? undefined;
          } catch (e) {
            deployment.fail(e);
            return undefined;
          }
        };
        try {
          outputs = ((await pulumi.runtime.runInPulumiStack(init)) as Record<string, any>) ?? {};
        } catch (e) {
          deployment.fail(e);
        }
        // Waits for every pending registration (and thus every plugin call made for it).
        await pulumi.runtime.disconnect();
        if (pulumi.log.hasErrors()) deployment.fail(new Error("the program logged errors (pulumi.log.error)"));
      });
      await deployment.finish();
    } catch (e) {
      deployment.fail(e);
    } finally {
      if (!preview) this.state = deployment.resultState();
    }
    return this.finishRun(kind, plugin, deployment.steps, deployment.errors, outputs, opts);
  }

  private async doRefresh(opts: RunOptions): Promise<RunResult> {
    const plugin = this.pluginFor(opts);
    const steps: Step[] = [];
    const errors: unknown[] = [];
    const entries = [...this.state.values()];
    if (entries.length > 0) {
      try {
        const p = await plugin.get();
        // The engine refreshes resources in parallel.
        const results = await Promise.allSettled(entries.map((s) => p.read(s.id, s.urn, s.outputs, s.inputs)));
        results.forEach((r, i) => {
          const s = entries[i]!;
          const base = { urn: s.urn, type: s.type, name: s.name };
          if (r.status === "rejected") {
            errors.push(r.reason);
            return;
          }
          const res = r.value;
          if (res.id === undefined) {
            this.state.delete(s.urn);
            steps.push({ ...base, op: "refresh-gone", id: s.id });
            return;
          }
          const inputs = res.inputs ?? s.inputs;
          const keys = changedKeys(s.outputs, res.outs);
          // Like the CLI's refresh display: a change is a change of the outputs (or id).
          const changed = keys.length > 0 || res.id !== s.id;
          this.state.set(s.urn, { ...s, id: res.id, outputs: res.outs, inputs });
          steps.push({
            ...base,
            op: changed ? "refresh-changed" : "refresh-same",
            id: res.id,
            changedKeys: keys,
            changedInputKeys: changedKeys(s.inputs, inputs),
          });
        });
      } catch (e) {
        errors.push(e);
      }
    }
    return this.finishRun("refresh", plugin, steps, errors, {}, opts);
  }

  private async doDestroy(opts: RunOptions): Promise<RunResult> {
    const plugin = this.pluginFor(opts);
    const steps: Step[] = [];
    const errors: unknown[] = [];
    const entries = [...this.state.values()];
    if (entries.length > 0) {
      try {
        const p = await plugin.get();
        for (const s of deletionOrder(entries)) {
          if (s.protect) throw new Error(`${s.urn}: resource is protected; cannot delete it`);
          if (!s.retainOnDelete) await p.delete(s.id, s.urn, s.outputs, s.inputs);
          this.state.delete(s.urn);
          steps.push({ urn: s.urn, type: s.type, name: s.name, op: "delete", id: s.id });
        }
      } catch (e) {
        errors.push(e);
      }
    }
    return this.finishRun("destroy", plugin, steps, errors, {}, opts);
  }
}

