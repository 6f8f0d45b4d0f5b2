/**
 * ProgramStack: runs a whole Pulumi program (a function, or an example folder's index) under
 * `pulumi.runtime.setMocks`, its dynamic resources sent to the REAL dynamic-provider plugin, and
 * keeps the stack state between runs, so a test can `up`, `preview`, `refresh` and `destroy` like
 * the CLI. How a run works and what it honours: docs/harness.md.
 */
import type { Mocks } from "@pulumi/pulumi/runtime/mocks";
import type { LogLine, PluginOptions } from "../pluginDriver";
import { Deployment, destroyAll, refreshAll, type RunSteps } from "./deployment";
import { runUnderMocks } from "./monitor";
import { PluginPool, trace, type RunPlugin } from "./plugins";
import { programFromPath, type Program } from "./programFile";
import { isChange, type StateEntry, type Step } from "./state";

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

/** Options of one run, on top of the stack's own. */
export interface RunOptions {
  /** Config for this run only, merged over the stack config. */
  config?: Record<string, string>;
  /** Extra secret config keys for this run. */
  secretConfigKeys?: string[];
  /** Like `pulumi up --expect-no-changes`: fail the run if any step is not "same". */
  expectNoChanges?: boolean;
}

/** What a run did: its steps, the stack exports, what the plugin printed, and the errors. */
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

/** Thrown when a run fails; `result` is what happened until then, `causes` the errors themselves. */
export class RunError extends Error {
  constructor(
    readonly result: RunResult,
    readonly causes: unknown[],
  ) {
    super(`${result.kind} failed:\n${result.errors.map((e) => `  ${e}`).join("\n")}`);
    this.name = "RunError";
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
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
  private readonly plugins: PluginPool;

  constructor(readonly opts: ProgramStackOptions) {
    this.project = opts.project ?? "test-project";
    this.stack = opts.stack ?? "test";
    this.config = { ...(opts.config ?? {}) };
    this.secretConfigKeys = [...(opts.secretConfigKeys ?? [])];
    this.plugins = new PluginPool(() => this.pluginOptions({}), opts.prestart !== false);
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
    return this.serial(async () => {
      const plugin = this.plugins.forRun(this.pluginOptions(opts));
      return this.finishRun("refresh", plugin, await refreshAll(plugin, this.state), {}, opts);
    });
  }

  /** `pulumi destroy --yes`: deletes everything, dependents first, otherwise in reverse creation order. */
  destroy(opts: RunOptions = {}): Promise<RunResult> {
    return this.serial(async () => {
      const plugin = this.plugins.forRun(this.pluginOptions(opts));
      return this.finishRun("destroy", plugin, await destroyAll(plugin, this.state), {}, opts);
    });
  }

  /** Waits for a running run and kills the pre-started spare plugin. Always call it (afterAll). */
  async close(): Promise<void> {
    this.closed = true;
    // No spare from now on: a run still in progress takes a process of its own.
    const spareGone = this.plugins.close();
    await this.queue.catch(() => {});
    await spareGone;
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

  private async deploy(kind: "up" | "preview", program: Program, opts: RunOptions): Promise<RunResult> {
    const preview = kind === "preview";
    const fn = typeof program === "string" ? programFromPath(program) : program;
    const plugin = this.plugins.forRun(this.pluginOptions(opts));
    // Start the plugin while the program runs, when there is or may be a dynamic resource.
    plugin.warmUp();
    const deployment = new Deployment(new Map(this.state), plugin, preview);
    const config = { ...this.config, ...(opts.config ?? {}) };
    const secretConfigKeys = [...this.secretConfigKeys, ...(opts.secretConfigKeys ?? [])];
    let outputs: Record<string, any> = {};
    try {
      outputs = await runUnderMocks(fn, deployment, {
        project: this.project,
        stack: this.stack,
        preview,
        config,
        secretConfigKeys,
        mocks: this.opts.mocks,
      });
      await deployment.finish();
    } catch (e) {
      deployment.fail(e);
    } finally {
      if (!preview) this.state = deployment.resultState();
    }
    return this.finishRun(kind, plugin, deployment, outputs, opts);
  }

  /** Closes the run's plugin and builds its result; throws {@link RunError} if the run failed. */
  private async finishRun(
    kind: RunResult["kind"],
    plugin: RunPlugin,
    { steps, errors }: RunSteps,
    outputs: Record<string, any>,
    opts: RunOptions,
  ): Promise<RunResult> {
    await plugin.close();
    const result: RunResult = {
      kind,
      outputs,
      steps,
      changes: steps.filter(isChange).length,
      logs: await plugin.logs(),
      errors: errors.map(message),
    };
    if (errors.length === 0 && opts.expectNoChanges && result.changes > 0) {
      const msg = `no changes were expected but changes occurred: ${steps
        .filter(isChange)
        .map((s) => `${s.op} ${s.urn}`)
        .join(", ")}`;
      errors.push(new Error(msg));
      result.errors.push(msg);
    }
    if (errors.length > 0) throw new RunError(result, errors);
    return result;
  }
}
