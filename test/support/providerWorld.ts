/**
 * A seeded emulator plus the dynamic face, for resource tests. Each `run` is one Pulumi run, with
 * resource state carried between runs: by default served in this process by the in-process
 * driver (support/inProcessPlugin.ts: a fresh `Run` per run, as the CLI starts a fresh plugin per
 * run, so per-run caches start empty), configured with stack config. Keep one Pulumi operation
 * (up, preview, refresh, destroy) per `run`, as the CLI does: what a run checks it claims
 * (resources/support/handover.ts), so a destroy in the same run as the up that declared the
 * resource hands over instead of deleting.
 *
 * With `process: true` (the engine tier: what only a real process shows, such as a run killed
 * half-way or the plugin's own output) each run is a fresh process of Pulumi's real
 * dynamic-provider plugin instead, loading the package from dist/ exactly as a program would
 * (the next one boots while a run works, harness/pluginPool.ts).
 * A resource test file starts its world with `useResourceWorld`, which also isolates its tests.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { startEmulator, type RunningEmulator, type EmulatorOptions, type Store } from "../../emulator";
import type { LogEntry } from "../../emulator/traffic";
import { startPlugin, type CheckFailure, type LogLine } from "../../harness/pluginDriver";
import { PluginPool, RunPlugin } from "../../harness/pluginPool";
import { ResourceDriver, type ResourceState } from "../../harness/resourceDriver";
import { CheckFailedError } from "../../harness/engineSteps";
import type { Props } from "../../harness/wire";
import { unpackProps } from "../../contract/packed";
import { providerSource } from "../../provider/resources/support/resourceClass";
import type { ProviderCalls } from "../../harness/engineSteps";
import { InProcessPlugin } from "./inProcessPlugin";

export const repoRoot = path.resolve(__dirname, "../..");
/**
 * A new, empty program folder in the system's temporary folder, as a user's program folder is:
 * its node_modules holds pulumi-reviewadmin (this checkout) and @pulumi. A plugin run there
 * writes its local records (`.reviewadmin/`) there and nowhere else, and loads this checkout's
 * dist/ even when the repository's node_modules is shared with another checkout (a git worktree),
 * whose pulumi-reviewadmin link points at that other checkout. Removed when the process exits.
 */
export function programFolder(prefix = "program-"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const modules = path.join(dir, "node_modules");
  fs.mkdirSync(modules);
  fs.symlinkSync(repoRoot, path.join(modules, "pulumi-reviewadmin"), "dir");
  fs.symlinkSync(fs.realpathSync(path.join(repoRoot, "node_modules", "@pulumi")), path.join(modules, "@pulumi"), "dir");
  process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The check failures a preview of `inputs` ends with (none when it passes check). */
export async function failuresOfPreview(d: ResourceDriver, inputs: Props): Promise<CheckFailure[]> {
  try {
    return (await d.preview(inputs)).check.failures;
  } catch (err) {
    if (err instanceof CheckFailedError) return err.failures;
    throw err;
  }
}

/** Type token of a resource kind. */
export const tokenOf = (kind: string) => `pulumi-nodejs:dynamic/reviewadmin:${kind}`;

/** The `__provider` text of a kind, as the package's resources store it. */
export async function providerText(kind: string): Promise<string> {
  return providerSource(kind);
}

/** What a test reads of a run's plugin: the calls, and what the run said. */
export type WorldPlugin = ProviderCalls & {
  readonly logs: LogLine[];
  readonly stdout: string;
  readonly stderr: string;
  waitForLog(match: string | RegExp | ((l: LogLine) => boolean), timeoutMs?: number): Promise<LogLine>;
  close(): Promise<void>;
};

/** One Pulumi run: a plugin (in process, or a real process) and the resources driven through it. */
export interface Run {
  plugin: WorldPlugin;
  /** A resource by kind and name, with the state it had at the end of the previous run. */
  resource(kind: string, name: string): Promise<ResourceDriver>;
}

export interface ProviderWorld {
  emu: RunningEmulator;
  /** Key the plugin uses (default: the seeded org admin's user key). */
  key: string;
  /** State of every resource, by `kind/name`. */
  states: Map<string, ResourceState | undefined>;
  /** One run; `cwd`: the folder the plugin runs in (default the world's, see ProviderWorldOptions.cwd). */
  run<T>(fn: (r: Run) => Promise<T>, opts?: { key?: string; requestsPerSecond?: number; cwd?: string }): Promise<T>;
  close(): Promise<void>;
}

/** A real plugin process for one run in `cwd`: the pool's spare when the run is in the world's folder, else one of its own. */
function processPlugin(plugins: PluginPool, poolCwd: string, cwd: string, config: Record<string, string>): RunPlugin {
  const pluginOptions = { cwd, config, secretConfigKeys: ["reviewadmin:apiKey"] };
  return cwd === poolCwd ? plugins.forRun(pluginOptions) : new RunPlugin(() => startPlugin(pluginOptions));
}

/** Options of {@link startProviderWorld} and {@link useResourceWorld}. */
export interface ProviderWorldOptions {
  /** Role of the seeded key the runs use (default "orgAdmin"). */
  keyName?: string;
  emulator?: EmulatorOptions;
  /** Folder the plugin runs in (default a new programFolder of the world's own). */
  cwd?: string;
  /**
   * Each run in a real plugin process from dist/ (engine tier), for what only a process shows: a
   * run killed half-way, the plugin's own output. Default: in this process (support/inProcessPlugin.ts).
   */
  process?: boolean;
}

/** Starts an emulator (rate limit raised unless given) and returns a world whose runs use `keyName`. */
export async function startProviderWorld(opts: ProviderWorldOptions = {}): Promise<ProviderWorld> {
  const emu = await startEmulator({ rateLimit: 0, ...opts.emulator });
  const states = new Map<string, ResourceState | undefined>();
  // A program folder of the world's own by default: what its runs write locally (resume points,
  // in-flight creates under .reviewadmin/) is no other test file's business.
  const poolCwd = opts.cwd ?? programFolder("resource-world-");
  // Real plugin processes only for a world that asks for them (the engine tier).
  const plugins = opts.process ? new PluginPool(() => ({ cwd: poolCwd }), true) : undefined;
  const world: ProviderWorld = {
    emu,
    key: emu.keys[opts.keyName ?? "orgAdmin"],
    states,
    async run(fn, runOpts = {}) {
      const cwd = runOpts.cwd ?? poolCwd;
      const config = {
        "reviewadmin:apiKey": runOpts.key ?? world.key,
        "reviewadmin:baseUrl": emu.url,
        "reviewadmin:requestsPerSecond": String(runOpts.requestsPerSecond ?? 1000),
      };
      const started = plugins ? processPlugin(plugins, poolCwd, cwd, config) : undefined;
      const plugin: WorldPlugin = started ? await started.get() : new InProcessPlugin({ cwd, config });
      const drivers = new Map<string, ResourceDriver>();
      try {
        return await fn({
          plugin,
          async resource(kind, name) {
            const id = `${kind}/${name}`;
            let d = drivers.get(id);
            if (!d) {
              d = new ResourceDriver(plugin, tokenOf(kind), name, await providerText(kind), (props) => unpackProps(kind, props));
              d.state = states.get(id);
              drivers.set(id, d);
            }
            return d;
          },
        });
      } finally {
        for (const [id, d] of drivers) states.set(id, d.state);
        await (started ? started.close() : plugin.close());
      }
    },
    async close() {
      await plugins?.close();
      await emu.close();
    },
  };
  return world;
}

/**
 * The requests the emulator answered after {@link ResourceWorld.record} was called, each as
 * `"<operation id> <status>"` (e.g. `"DeleteOrganizationInvitation 404"`), sorted so that
 * requests sent concurrently compare equal whatever order they arrived in.
 */
export interface Recorded {
  all(): string[];
  /** Requests other than GET: the ones that can change something. */
  writes(): string[];
}

/** What {@link useResourceWorld} gives a test file: accessors, valid once its `beforeAll` has run. */
export interface ResourceWorld {
  world(): ProviderWorld;
  store(): Store;
  /** Requests logged for one operation id in the current test so far. */
  calls(op: string): number;
  /** Starts a record of the requests answered from now on. */
  record(): Recorded;
  /** A resource of the file's kind (or of `kind`) in `run`. */
  res(run: Run, name: string, kind?: string): Promise<ResourceDriver>;
  /** The check failures of one set of inputs (of the file's kind, or of `kind`), one line each (by default "property: reason", as the engine shows them). */
  failuresOf(run: Run, inputs: Props, line?: (f: CheckFailure) => string, kind?: string): Promise<string>;
}

/**
 * The prelude of a resource test file: starts a world before the file's tests and closes it after.
 * Before each test it forgets every resource's state, clears injected faults and empties the
 * request log, so a test sees only what it did itself and can run alone or in any order.
 *
 * @param kind the resource kind `res` and `failuresOf` use when not told another
 */
export function useResourceWorld(kind?: string, opts: ProviderWorldOptions = {}): ResourceWorld {
  let current: ProviderWorld | undefined;
  beforeAll(async () => {
    current = await startProviderWorld(opts);
  });
  afterAll(async () => {
    await current?.close();
  });
  beforeEach(() => {
    // Each test starts from the seeded world, whatever the tests before it changed.
    current?.emu.reset(opts.emulator?.seed, opts.emulator?.scale);
    current?.states.clear();
    current?.emu.traffic.faults.clear();
    current?.emu.traffic.log.reset();
  });

  const world = (): ProviderWorld => {
    if (!current) throw new Error("useResourceWorld: the world is not started yet (use it inside a test or hook)");
    return current;
  };
  const log = () => world().emu.traffic.log;
  const res = (run: Run, name: string, k = kind): Promise<ResourceDriver> => {
    if (!k) throw new Error(`useResourceWorld: no resource kind for ${name}; pass one to useResourceWorld or to res`);
    return run.resource(k, name);
  };
  return {
    world,
    store: () => world().emu.store,
    calls: (op) => log().list(op).length,
    record() {
      const from = log().list().at(-1)?.seq ?? 0;
      const since = () =>
        log()
          .list()
          .filter((e) => e.seq > from);
      const line = (e: LogEntry) => `${e.operation ?? e.path} ${e.status}`;
      return {
        all: () => since().map(line).sort(),
        writes: () =>
          since()
            .filter((e) => e.method !== "GET")
            .map(line)
            .sort(),
      };
    },
    res,
    async failuresOf(run, inputs, line = (f) => `${f.property}: ${f.reason}`, k) {
      const d = await res(run, "bad", k);
      const { failures } = await run.plugin.check(d.urn, {}, { __provider: d.provider, ...inputs });
      return failures.map(line).join("\n");
    },
  };
}
