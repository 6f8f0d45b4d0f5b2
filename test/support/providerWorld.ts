/**
 * A seeded emulator plus the real dynamic-provider plugin, for resource tests. Each `run` is
 * one Pulumi run: a fresh plugin process (as the CLI starts one per run, so per-run caches start
 * empty), configured with stack config, with resource state carried between runs.
 *
 * Providers are serialized from dist/ (built by `npm test`), exactly as a program would.
 */
import * as path from "node:path";
import { createRequire } from "node:module";
import { startEmulator, type RunningEmulator, type EmulatorOptions } from "../../emulator";
import { serializeProvider, startPlugin, type Plugin } from "../../harness/pluginDriver";
import { ResourceDriver, type ResourceState } from "../../harness/resourceDriver";

export const repoRoot = path.resolve(__dirname, "../..");
const requireDist = createRequire(path.join(repoRoot, "package.json"));

/** The compiled package, as a program imports it. */
export function dist(): typeof import("../../provider") {
  return requireDist("./dist/provider/index.js");
}

/** Type token of a resource kind. */
export const tokenOf = (kind: string) => `pulumi-nodejs:dynamic/reviewadmin:${kind}`;

const serialized = new Map<string, Promise<string>>();
/** The `__provider` text of a kind, serialized once per test process. */
export function providerText(kind: string): Promise<string> {
  let p = serialized.get(kind);
  if (!p) {
    const { providerFor } = requireDist("./dist/provider/resources/support/resourceClass.js");
    serialized.set(kind, (p = serializeProvider(providerFor(kind))));
  }
  return p;
}

/** One Pulumi run: a plugin and the resources driven through it. */
export interface Run {
  plugin: Plugin;
  /** A resource by kind and name, with the state it had at the end of the previous run. */
  resource(kind: string, name: string): Promise<ResourceDriver>;
}

export interface ProviderWorld {
  emu: RunningEmulator;
  /** Key the plugin uses (default: the seeded org admin's user key). */
  key: string;
  /** State of every resource, by `kind/name`. */
  states: Map<string, ResourceState | undefined>;
  run<T>(fn: (r: Run) => Promise<T>, opts?: { key?: string; requestsPerSecond?: number }): Promise<T>;
  close(): Promise<void>;
}

/** Starts an emulator (rate limit raised unless given) and returns a world whose runs use `keyName`. */
export async function startProviderWorld(opts: { keyName?: string; emulator?: EmulatorOptions } = {}): Promise<ProviderWorld> {
  const emu = await startEmulator({ rateLimit: 0, ...opts.emulator });
  const states = new Map<string, ResourceState | undefined>();
  const world: ProviderWorld = {
    emu,
    key: emu.keys[opts.keyName ?? "orgAdmin"],
    states,
    async run(fn, runOpts = {}) {
      const plugin = await startPlugin({
        cwd: repoRoot,
        config: {
          "reviewadmin:apiKey": runOpts.key ?? world.key,
          "reviewadmin:baseUrl": emu.url,
          "reviewadmin:requestsPerSecond": String(runOpts.requestsPerSecond ?? 1000),
        },
        secretConfigKeys: ["reviewadmin:apiKey"],
      });
      const drivers = new Map<string, ResourceDriver>();
      try {
        return await fn({
          plugin,
          async resource(kind, name) {
            const id = `${kind}/${name}`;
            let d = drivers.get(id);
            if (!d) {
              d = new ResourceDriver(plugin, tokenOf(kind), name, await providerText(kind));
              d.state = states.get(id);
              drivers.set(id, d);
            }
            return d;
          },
        });
      } finally {
        for (const [id, d] of drivers) states.set(id, d.state);
        await plugin.close();
      }
    },
    async close() {
      await emu.close();
    },
  };
  return world;
}
