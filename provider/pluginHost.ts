/**
 * What Pulumi's dynamic-provider plugin does not give a provider, taken from the plugin process
 * itself. The plugin (`@pulumi/pulumi/cmd/dynamic-provider`) calls a provider with plain values:
 * no URN, no way to attach a message to a resource, and an error thrown from check, diff, read or
 * delete is printed with its stack (`console.error(\`${e}: ${e.stack}\`)`) before the engine prints
 * it again. So, in the plugin process only:
 *
 * - every request's URN travels with the values the provider is called with (`urnOf`): the
 *   plugin turns each request's property struct into an object with `toJavaScript()`, and the
 *   object made from a request's struct carries that request's URN under a symbol;
 * - the URN of a resource id is told to the process's run once a request about that id names it
 *   (`hookRequestIds`; the run keeps them: run.ts `urnOfId`): the plugin's first request converted
 *   its values before this module was loaded, so they carry no URN, but a Diff, Update or Delete
 *   reads its request's id after loading the provider, and a refresh's first Read is followed by a
 *   Diff of the same resource (messages.ts holds its messages until then);
 * - messages go to the engine's Log service, whose address the engine gives the plugin as its
 *   argument, with the resource's URN and a real severity (`engineLog`): the preview then shows
 *   them under the resource, and progress can be ephemeral;
 * - an error already worded for the user (`quiet`) is not printed a second time with its stack.
 *
 * Anything that is not as expected (another plugin, another SDK layout, no engine address) leaves
 * the plugin as it is: messages then go to stdout as `pulumi.log` prints them, without a URN.
 */
import { createRequire } from "node:module";

/** Where the URN of the request a value came from is kept on that value (not enumerable). */
const URN = Symbol.for("pulumi-reviewadmin.urn");

/** The URN of the request `props` came from, when the plugin's requests carry it here. */
export function urnOf(props: unknown): string | undefined {
  const urn = props && typeof props === "object" ? (props as Record<symbol, unknown>)[URN] : undefined;
  return typeof urn === "string" && urn !== "" ? urn : undefined;
}

/** The engine's log severities (pulumirpc.LogSeverity). */
export const SEVERITY = { debug: 0, info: 1, warning: 2, error: 3 } as const;

type LogFn = (severity: number, message: string, urn: string, ephemeral: boolean) => Promise<void>;

// eslint-disable-next-line no-restricted-syntax -- process-wide: the plugin process's hooks into its host, made once (attachToPlugin, attachToServer).
let attached = false;
// eslint-disable-next-line no-restricted-syntax -- process-wide: the engine's Log service at the address the process was started with.
let engineLogFn: LogFn | undefined;
// eslint-disable-next-line no-restricted-syntax -- process-wide: errors worded for the user, each dropped when the plugin prints it.
const quietTexts = new Set<string>();
/** The main module of Pulumi's dynamic-provider plugin: the one process this file hooks into. */
const DYNAMIC_PLUGIN = /[\\/]cmd[\\/]dynamic-provider[\\/]index\.js$/;

/** The engine's Log service, when this process is the dynamic-provider plugin and an engine address was given. */
export function engineLog(): LogFn | undefined {
  return engineLogFn;
}

/**
 * Marks an error as already worded for the user: the plugin's own `console.error` of it (with its
 * stack) is dropped, and the engine prints its message once.
 */
export function quiet<E>(err: E): E {
  if (attached && err instanceof Error) quietTexts.add(String(err));
  return err;
}

interface Proto {
  prototype: Record<string, unknown>;
}

/**
 * Hooks into the plugin process (see the file comment); does nothing elsewhere, and only once.
 * Called when the plugin loads the provider (runtime.ts).
 */
export function attachToPlugin(): void {
  if (attached) return;
  const main = require.main?.filename ?? "";
  if (!DYNAMIC_PLUGIN.test(main)) return;
  attached = true;
  // The plugin's own copies of the SDK's modules: the ones its requests are made of.
  const fromPlugin = createRequire(main);
  try {
    carryUrns(fromPlugin);
  } catch {
    // Another SDK layout: values come without URNs, and messages go to stdout.
  }
  try {
    engineLogFn = engineClient(fromPlugin, process.argv[2]);
  } catch {
    engineLogFn = undefined;
  }
  const consoleError = console.error.bind(console);
  console.error = (...args: unknown[]) => {
    const first = args[0];
    if (typeof first === "string") {
      for (const text of quietTexts) {
        if (first.startsWith(`${text}: `)) {
          quietTexts.delete(text);
          return;
        }
      }
    }
    consoleError(...args);
  };
}

/**
 * The same, for this package's own provider plugin (plugin/server.ts), which reads requests itself:
 * messages go to the engine at `address`, and `carryUrn` tags the values it passes on.
 */
export function attachToServer(address: string | undefined, fromSdk: NodeRequire): void {
  attached = true;
  try {
    engineLogFn = engineClient(fromSdk, address, "./proto/");
  } catch {
    engineLogFn = undefined;
  }
}

/** Tags `value` (a request's properties as an object) with the URN of the request it came from. */
export function carryUrn<T>(value: T, urn: string): T {
  if (value && typeof value === "object" && urn) Object.defineProperty(value, URN, { value: urn });
  return value;
}

/** Makes each request's property structs, once turned into objects, carry the request's URN. */
function carryUrns(fromPlugin: NodeRequire): void {
  const provider = fromPlugin("../../proto/provider_pb") as Record<string, Proto>;
  const struct = (fromPlugin("google-protobuf/google/protobuf/struct_pb") as { Struct: Proto }).Struct;
  const origin = new WeakMap<object, string>();
  const getters: Record<string, string[]> = {
    CheckRequest: ["getOlds", "getNews"],
    DiffRequest: ["getOlds", "getNews"],
    CreateRequest: ["getProperties"],
    ReadRequest: ["getProperties", "getInputs"],
    UpdateRequest: ["getOlds", "getNews"],
    DeleteRequest: ["getProperties"],
  };
  for (const [name, methods] of Object.entries(getters)) {
    const proto = provider[name]!.prototype;
    for (const method of methods) {
      const get = proto[method] as (this: { getUrn(): string }) => object | undefined;
      if (typeof get !== "function") throw new Error(`${name}.${method} is not a function`);
      proto[method] = function (this: { getUrn(): string }) {
        const value = get.call(this);
        if (value) origin.set(value, this.getUrn());
        return value;
      };
    }
  }
  const toJavaScript = struct.prototype.toJavaScript as (this: object) => unknown;
  if (typeof toJavaScript !== "function") throw new Error("Struct.toJavaScript is not a function");
  struct.prototype.toJavaScript = function (this: object) {
    const value = toJavaScript.call(this);
    const urn = origin.get(this);
    if (urn && value && typeof value === "object") Object.defineProperty(value, URN, { value: urn });
    return value;
  };
}

/**
 * Tells `onId` the URN of each Diff, Update, Delete and Read whose id the plugin reads: the plugin
 * reads the id of a Diff, Update or Delete after loading the provider, right before calling it, so
 * even the first request's operation finds its URN by id. A Read's id names it from the second
 * request on, where values the provider unpacks into new objects (a roster's, contract/packed.ts)
 * no longer carry it. In the dynamic-provider plugin only, for its one run (runtime.ts); false
 * elsewhere, or when the SDK's requests are not shaped so.
 */
export function hookRequestIds(onId: (id: string, urn: string) => void): boolean {
  const main = require.main?.filename ?? "";
  if (!attached || !DYNAMIC_PLUGIN.test(main)) return false;
  try {
    const provider = createRequire(main)("../../proto/provider_pb") as Record<string, Proto>;
    for (const name of ["DiffRequest", "UpdateRequest", "DeleteRequest", "ReadRequest"]) {
      const proto = provider[name]!.prototype;
      const getId = proto.getId as (this: { getUrn(): string }) => string;
      if (typeof getId !== "function") return false;
      proto.getId = function (this: { getUrn(): string }) {
        const id = getId.call(this);
        if (id) onId(id, this.getUrn());
        return id;
      };
    }
    return true;
  } catch {
    return false;
  }
}

/** A client of the engine's Log service at `address` (the plugin's argument), or undefined without one. */
function engineClient(fromPlugin: NodeRequire, address: string | undefined, protos = "../../proto/"): LogFn | undefined {
  // The test harness starts the plugin with a placeholder address: no engine listens there.
  if (!address || /:0$/.test(address)) return undefined;
  const grpc = fromPlugin("@grpc/grpc-js") as { credentials: { createInsecure(): unknown } };
  const { EngineClient } = fromPlugin(`${protos}engine_grpc_pb`) as {
    EngineClient: new (
      address: string,
      credentials: unknown,
    ) => {
      log(req: unknown, done: (err: Error | null) => void): void;
    };
  };
  const { LogRequest } = fromPlugin(`${protos}engine_pb`) as {
    LogRequest: new () => {
      setSeverity(s: number): void;
      setMessage(m: string): void;
      setUrn(u: string): void;
      setEphemeral(e: boolean): void;
    };
  };
  const client = new EngineClient(address, grpc.credentials.createInsecure());
  return (severity, message, urn, ephemeral) =>
    new Promise((resolve, reject) => {
      const req = new LogRequest();
      req.setSeverity(severity);
      req.setMessage(message);
      req.setUrn(urn);
      req.setEphemeral(ephemeral);
      client.log(req, (err) => (err ? reject(err) : resolve()));
    });
}
