/**
 * The plugin processes of the resource tests' runs (test/support/providerWorld.ts): each run gets
 * a fresh process (as under the CLI, so the provider's per-run caches start empty), and one spare
 * keeps booting in the background because a plugin takes ~0.7 s to start.
 */
import { startPlugin, type Plugin, type PluginOptions } from "./pluginDriver";

/** Debug aid: PLUGIN_POOL_TRACE=1 prints which plugin each run got. */
function trace(msg: string): void {
  if (process.env.PLUGIN_POOL_TRACE) process.stderr.write(`[plugin-pool] ${msg}\n`);
}

/** The plugin of one run, started on first use (possibly taken from the pool's spare). */
export class RunPlugin {
  private started: Promise<Plugin> | undefined;

  constructor(private readonly start: () => Promise<Plugin>) {}

  /** The plugin, started on the first call. */
  get(): Promise<Plugin> {
    return (this.started ??= this.start());
  }

  /** Kills the plugin, if it started. */
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

/** Spare plugins not yet closed, killed if the process exits without PluginPool.close(). */
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

/**
 * Hands each run a fresh plugin: the spare when it is usable (sent Configure with the run's
 * config before any other call), else a new process; taking the spare starts the next one.
 */
export class PluginPool {
  private spare: { plugin: Promise<Plugin>; env: string } | undefined;
  private closed = false;

  /**
   * @param spareOptions options for a spare, read when it is started (its config is replaced when a run takes it)
   * @param prestart false: no spare, every run starts its own process
   */
  constructor(
    private readonly spareOptions: () => PluginOptions,
    private readonly prestart: boolean,
  ) {
    this.startSpare();
  }

  /** The plugin for one run with `options`, started when the run first needs it. */
  forRun(options: PluginOptions): RunPlugin {
    return new RunPlugin(() => this.take(options));
  }

  /** Starts no spare from now on and kills the waiting one. */
  async close(): Promise<void> {
    this.closed = true;
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

  private async take(options: PluginOptions): Promise<Plugin> {
    const spare = this.spare;
    this.spare = undefined;
    // Boot the next run's plugin while this run works.
    this.startSpare();
    if (spare && spare.env === envKey(options.env)) {
      try {
        const p = await spare.plugin;
        liveSpares.delete(p);
        await p.configure(options.config ?? {}, options.secretConfigKeys ?? []);
        trace("plugin: using the spare");
        return p;
      } catch {
        // Fall through: start a new one.
      }
    } else if (spare) {
      void spare.plugin.then((p) => (liveSpares.delete(p), p.close())).catch(() => {});
    }
    trace(`plugin: starting a new one (spare ${spare ? "unusable" : "absent"})`);
    return startPlugin(options);
  }

  private startSpare(): void {
    if (!this.prestart || this.closed || this.spare) return;
    const options = this.spareOptions();
    const plugin = startPlugin(options);
    plugin.then(trackSpare, () => {});
    this.spare = { plugin, env: envKey(options.env) };
  }
}
