/**
 * Test harness: drives the REAL Pulumi dynamic-provider plugin
 * (`@pulumi/pulumi/cmd/dynamic-provider/index.js`) over gRPC, the way the engine does,
 * because the Pulumi CLI cannot be installed here.
 *
 * What we learned about the plugin (@pulumi/pulumi 3.270) while writing this:
 * - The engine-address argument is only checked for presence; the plugin never connects to it.
 *   `pulumi.log.*` inside provider code reads PULUMI_NODEJS_ENGINE, which the engine does not set
 *   for dynamic providers, so log calls fall back to console (`info: [runtime] msg` on stdout,
 *   `warning:`/`error:` on stderr). The real engine shows plugin stdout/stderr to the user
 *   (pulumi/pulumi#18253). So no fake Engine server is needed: we capture stdout/stderr as `logs`.
 * - Configure only stores `args` (a Struct); `provider.configure()` runs lazily on the FIRST
 *   Check/Diff/Create/... that carries a given `__provider` text. A provider with a broken
 *   configure therefore fails on its first CRUD call, not on Configure. Configure must come
 *   first: without it the plugin's raw config is undefined and `req.config.get` throws.
 * - `Config.get("x")` without a namespace looks up `<PULUMI_NODEJS_PROJECT>:x`.
 * - Check/Diff/Read/Delete errors reach the client as gRPC UNKNOWN with the error message as
 *   details (the plugin also prints the stack to its stderr); Create/Update errors likewise, plus
 *   an ErrorResourceInitFailed detail when the thrown error carries `id` (partial create).
 * - Read with `{}` (no id) returns id "" and properties `{__provider}`: we report `id: undefined`.
 * - Every response's outputs carry `__provider`; Check always copies `news.__provider` into inputs.
 * - `olds` in Diff/Update are the OLD OUTPUTS (not old inputs); Check's `olds` are old inputs.
 * - Requests without their Structs fail on `undefined.toJavaScript()` (a Configure without
 *   `args` throws outside any callback and never answers): always send (possibly empty)
 *   Structs, as the engine does.
 * - Structs cannot hold `undefined` ("Unexpected struct type"): we drop undefined keys and turn
 *   undefined array items into null, like the SDK's property serializer.
 *
 * Serializing providers under vitest (checked with vitest 5.1):
 * - Serialization of a class defined in a test file works (the inspector sees vitest's
 *   transformed JS, types stripped), as long as its methods reference no imported bindings of
 *   TS/ESM modules: vitest rewrites `import * as path from "node:path"` into
 *   `__vite_ssr_import_N__`, and the serializer then captures that wrapper BY VALUE. For Node
 *   built-ins this FAILS ("could not be serialized because it was a native code function").
 *   Imports of node_modules packages (externalized, e.g. `pulumi.runtime`) are fine: they become
 *   `require("@pulumi/pulumi/runtime/index.js")`, as in production.
 * - So test providers call `require("node:fs")` etc. inside methods (`require` exists in vitest
 *   test files, and in the plugin it resolves from the plugin's cwd).
 * - CommonJS files (.cjs, and .js here since package.json has no "type": "module", e.g. dist/)
 *   are loaded natively by vitest even through `import`, so providers taken from dist/ serialize
 *   exactly as in a real program (local modules by value, packages/built-ins by require). Do not
 *   serialize provider classes imported from provider/*.ts sources under vitest.
 * - The engine re-runs Check with EMPTY olds before a replacement (so defaults are recomputed);
 *   ResourceDriver does the same. On DIFF_UNKNOWN the engine deep-compares old and new inputs.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as pulumi from "@pulumi/pulumi";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import * as structproto from "google-protobuf/google/protobuf/struct_pb";

/** The engine's sentinel for values not known during preview (sdk runtime/rpc `unknownValue`). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Key marking a special value (secret, asset...) inside a Struct (sdk runtime/rpc `specialSigKey`). */
export const SPECIAL_SIG_KEY = "4dabf18193072939515e22adb298388d";

/** Signature value marking a secret (sdk runtime/rpc `specialSecretSig`). */
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** The property under which the serialized provider travels in inputs and outputs. */
export const PROVIDER_KEY = "__provider";

/** A property bag as the plugin sees it (plain JSON-like values). */
export type Props = Record<string, any>;

/** Options for {@link startPlugin}. */
export interface PluginOptions {
  /** Working directory of the plugin: serialized providers resolve `require(...)` from here. */
  cwd: string;
  /** Project name (PULUMI_NODEJS_PROJECT); default "test-project". */
  project?: string;
  /** Stack name (PULUMI_NODEJS_STACK); default "test". */
  stack?: string;
  /** Stack config sent with Configure, keys namespaced like "reviewadmin:apiKey". */
  config?: Record<string, string>;
  /** Keys of `config` to send wrapped as secrets, as the engine does for secret config. */
  secretConfigKeys?: string[];
  /** Extra environment variables for the plugin process (merged over process.env). */
  env?: Record<string, string | undefined>;
  /** Per-call gRPC deadline in ms; default 30 000. */
  callTimeoutMs?: number;
}

/** One line the plugin printed after its port line. */
export interface LogLine {
  stream: "stdout" | "stderr";
  line: string;
}

/** A Check failure as returned by the provider. */
export interface CheckFailure {
  property: string;
  reason: string;
}

/** Result of {@link Plugin.check}. */
export interface CheckResult {
  inputs: Props;
  failures: CheckFailure[];
}

/** One entry of DiffResponse.detailedDiff (the dynamic plugin never fills it, kept for completeness). */
export interface PropertyDiff {
  kind: string;
  inputDiff: boolean;
}

/** Result of {@link Plugin.diff}: DiffResponse in plain JS. */
export interface DiffResult {
  /** true = DIFF_SOME, false = DIFF_NONE, undefined = DIFF_UNKNOWN (engine then compares inputs itself). */
  changes: boolean | undefined;
  replaces: string[];
  stables: string[];
  deleteBeforeReplace: boolean;
  diffs: string[];
  hasDetailedDiff: boolean;
  detailedDiff: Record<string, PropertyDiff>;
}

/** Result of {@link Plugin.create}. */
export interface CreateResult {
  id: string;
  outs: Props;
}

/** Result of {@link Plugin.read}: `id` is undefined when the provider reported the resource gone. */
export interface ReadResult {
  id: string | undefined;
  outs: Props;
  /** Inputs the provider asked the engine to store (ReadResult.inputs), if any. */
  inputs: Props | undefined;
}

/** Result of {@link Plugin.update}. */
export interface UpdateResult {
  outs: Props;
}

/** Details of a partial create/update failure (the provider threw an error carrying `id`). */
export interface ResourceInitFailure {
  id: string;
  properties: Props;
  reasons: string[];
}

/** Error raised for a failed gRPC call; `message` is the provider's own error text. */
export class PluginError extends Error {
  /** gRPC status code (2 = UNKNOWN for errors thrown by provider code). */
  readonly code: number;
  /** Name of the RPC that failed, e.g. "create". */
  readonly rpc: string;
  /** Set when the provider threw an error with `id` during create/update. */
  readonly initFailure?: ResourceInitFailure;

  constructor(rpc: string, code: number, message: string, initFailure?: ResourceInitFailure) {
    super(message);
    this.name = "PluginError";
    this.rpc = rpc;
    this.code = code;
    this.initFailure = initFailure;
  }
}

/** A running dynamic-provider plugin process with a connected gRPC client. */
export interface Plugin {
  /** Project name used for URNs and `Config.get` without namespace. */
  readonly project: string;
  /** Stack name used for URNs. */
  readonly stack: string;
  /** Version reported by GetPluginInfo (the @pulumi/pulumi version). */
  readonly version: string;
  /** Lines printed by the plugin after its port line (provider console output, pulumi.log, stacks). */
  readonly logs: LogLine[];
  /** Everything printed on stdout after the port line. */
  readonly stdout: string;
  /** Everything printed on stderr. */
  readonly stderr: string;
  /**
   * Waits for a log line (already printed or upcoming). Needed because the plugin's stdout and
   * its gRPC replies travel on different pipes: a line printed during a call may arrive after it.
   */
  waitForLog(match: string | RegExp | ((l: LogLine) => boolean), timeoutMs?: number): Promise<LogLine>;
  /** Builds `urn:pulumi:<stack>::<project>::<type>::<name>`. */
  urn(type: string, name: string): string;
  /** Check RPC: `olds` are the previous inputs ({} on create). */
  check(urn: string, olds: Props, news: Props): Promise<CheckResult>;
  /** Diff RPC: `olds` are the previous OUTPUTS, `news` the checked inputs. */
  diff(id: string, urn: string, olds: Props, news: Props, oldInputs?: Props): Promise<DiffResult>;
  /** Create RPC with checked inputs. */
  create(urn: string, inputs: Props, opts?: { preview?: boolean }): Promise<CreateResult>;
  /** Read RPC (refresh): `props` are the stored outputs, `inputs` the stored inputs. */
  read(id: string, urn: string, props: Props, inputs?: Props): Promise<ReadResult>;
  /** Update RPC: `olds` are the previous OUTPUTS, `news` the checked inputs. */
  update(id: string, urn: string, olds: Props, news: Props, oldInputs?: Props): Promise<UpdateResult>;
  /** Delete RPC with the stored outputs. */
  delete(id: string, urn: string, props: Props, oldInputs?: Props): Promise<void>;
  /** Sends Configure again (e.g. to change config); provider.configure only reruns for new `__provider` texts. */
  configure(config: Record<string, string>, secretConfigKeys?: string[]): Promise<void>;
  /** Closes the client and kills the plugin process. */
  close(): Promise<void>;
}

/** Converts a JS value into something Struct.fromJavaScript accepts (no undefined anywhere). */
function clean(value: any): any {
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.map(clean);
  if (value !== null && typeof value === "object") {
    const out: Props = {};
    for (const [k, v] of Object.entries(value)) {
      // Like the SDK's serializer: an undefined property is simply absent.
      if (v !== undefined) out[k] = clean(v);
    }
    return out;
  }
  return value;
}

/** JS object to protobuf Struct. */
function toStruct(props: Props | undefined): structproto.Struct {
  return structproto.Struct.fromJavaScript(clean(props ?? {}));
}

/** protobuf Struct to JS object ({} when absent). */
function fromStruct(s: structproto.Struct | undefined): Props {
  return (s?.toJavaScript() as Props) ?? {};
}

/** Wraps a value the way the engine marks a secret inside a Struct. */
export function secretValue(value: unknown): Props {
  return { [SPECIAL_SIG_KEY]: SECRET_SIG, value };
}

/** Builds a PluginError from a grpc-js ServiceError, unpacking ErrorResourceInitFailed if present. */
function toPluginError(rpc: string, err: grpc.ServiceError, extra: () => string): PluginError {
  let initFailure: ResourceInitFailure | undefined;
  const bin = err.metadata?.get("grpc-status-details-bin")?.[0];
  if (bin && typeof bin !== "string") {
    try {
      const status = statusproto.Status.deserializeBinary(new Uint8Array(bin));
      for (const any of status.getDetailsList()) {
        if (any.getTypeName() === "pulumirpc.ErrorResourceInitFailed") {
          const d = provproto.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
          initFailure = { id: d.getId(), properties: fromStruct(d.getProperties()), reasons: d.getReasonsList() };
        }
      }
    } catch {
      // Malformed details: keep the plain error.
    }
  }
  // `details` is the provider's message; grpc-js's `message` prefixes it with "2 UNKNOWN: ".
  let message = err.details || err.message;
  // A dead plugin gives UNAVAILABLE with no useful text: add what it printed.
  if (err.code === grpc.status.UNAVAILABLE) message += extra();
  return new PluginError(rpc, err.code, message, initFailure);
}

/** Promisifies one unary call of the generated client. */
function unary<Req, Res>(
  client: grpc.Client,
  method: string,
  req: Req,
  timeoutMs: number,
  extra: () => string,
): Promise<Res> {
  return new Promise((resolve, reject) => {
    const deadline = new Date(Date.now() + timeoutMs);
    (client as any)[method](req, new grpc.Metadata(), { deadline }, (err: grpc.ServiceError | null, res: Res) => {
      if (err) reject(toPluginError(method, err, extra));
      else resolve(res);
    });
  });
}

/** Reads the first stdout line (the port) and keeps collecting the rest into `logs`. */
function waitForPort(
  child: ChildProcess,
  logs: LogLine[],
  out: { stdout: string; stderr: string },
  onLine: () => void,
): Promise<number> {
  return new Promise((resolve, reject) => {
    let port: number | undefined;
    let buf = { stdout: "", stderr: "" };
    const onData = (stream: "stdout" | "stderr") => (chunk: Buffer) => {
      buf[stream] += chunk.toString("utf8");
      let nl: number;
      while ((nl = buf[stream].indexOf("\n")) >= 0) {
        const line = buf[stream].slice(0, nl);
        buf[stream] = buf[stream].slice(nl + 1);
        if (stream === "stdout" && port === undefined) {
          port = Number(line.trim());
          if (!Number.isInteger(port) || port <= 0) reject(new Error(`plugin printed no port: ${line}`));
          else resolve(port);
          continue;
        }
        out[stream] += line + "\n";
        logs.push({ stream, line });
        onLine();
      }
    };
    child.stdout!.on("data", onData("stdout"));
    child.stderr!.on("data", onData("stderr"));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (port === undefined) {
        reject(new Error(`plugin exited (code ${code}, signal ${signal}) before printing its port:\n${out.stderr}${buf.stderr}`));
      }
    });
  });
}

/** Builds the ConfigureRequest the engine sends: config in `args`, secrets wrapped. */
function configureRequest(config: Record<string, string>, secretKeys: string[]): provproto.ConfigureRequest {
  const req = new provproto.ConfigureRequest();
  const args: Props = {};
  for (const [k, v] of Object.entries(config)) {
    args[k] = secretKeys.includes(k) ? secretValue(v) : v;
    // The engine also sends plain-text `variables`; the dynamic plugin ignores them.
    req.getVariablesMap().set(k, v);
  }
  req.setArgs(toStruct(args));
  req.setAcceptsecrets(true);
  req.setAcceptresources(true);
  req.setSendsOldInputs(true);
  req.setSendsOldInputsToDelete(true);
  return req;
}

/** Splits a URN into name and type, which the engine also sends with each request. */
function urnParts(urn: string): { name: string; type: string } {
  const parts = urn.split("::");
  return { type: parts[2] ?? "", name: parts[3] ?? "" };
}

/**
 * Starts the real dynamic-provider plugin in `opts.cwd`, connects, calls GetPluginInfo and
 * Configure, and returns a typed client. Always `close()` it (e.g. in afterAll).
 */
export async function startPlugin(opts: PluginOptions): Promise<Plugin> {
  const project = opts.project ?? "test-project";
  const stack = opts.stack ?? "test";
  const timeoutMs = opts.callTimeoutMs ?? 30_000;
  // Resolve the plugin from cwd, like the engine's pulumi-resource-pulumi-nodejs launcher
  // (`node ./node_modules/@pulumi/pulumi/cmd/dynamic-provider`): same @pulumi/pulumi the
  // serialized providers will require.
  const script = createRequire(path.join(opts.cwd, "__harness__.js")).resolve(
    "@pulumi/pulumi/cmd/dynamic-provider/index.js",
  );
  const child = spawn(process.execPath, [script, "127.0.0.1:0" /* engine address: checked, never used */], {
    cwd: opts.cwd,
    env: {
      ...process.env,
      PULUMI_NODEJS_PROJECT: project,
      PULUMI_NODEJS_STACK: stack,
      PULUMI_NODEJS_ROOT_DIRECTORY: opts.cwd,
      // Do not let a test runner's settings leak in: the engine gives the plugin no engine/monitor.
      PULUMI_NODEJS_ENGINE: undefined,
      PULUMI_NODEJS_MONITOR: undefined,
      ...opts.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: LogLine[] = [];
  const out = { stdout: "", stderr: "" };
  let exited = false;
  child.on("exit", () => (exited = true));
  const exitedPromise = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const extra = () => (exited ? `\n(plugin process has exited; stderr:\n${out.stderr})` : "");

  // Pending waitForLog calls, re-evaluated on every new line.
  const waiters = new Set<() => void>();
  const onLine = () => waiters.forEach((w) => w());
  const waitForLog = (match: string | RegExp | ((l: LogLine) => boolean), waitMs = 5_000): Promise<LogLine> => {
    const test =
      typeof match === "function" ? match : (l: LogLine) => (typeof match === "string" ? l.line.includes(match) : match.test(l.line));
    return new Promise((resolve, reject) => {
      const poll = () => {
        const hit = logs.find(test);
        if (!hit) return false;
        waiters.delete(poll);
        clearTimeout(timer);
        resolve(hit);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(poll);
        reject(new Error(`no plugin log line matching ${String(match)} within ${waitMs} ms; got:\n${logs.map((l) => l.line).join("\n")}`));
      }, waitMs);
      if (!poll()) waiters.add(poll);
    });
  };

  let port: number;
  try {
    port = await waitForPort(child, logs, out, onLine);
  } catch (e) {
    child.kill();
    throw e;
  }

  const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const call = <Res>(method: string, req: unknown) => unary<unknown, Res>(client, method, req, timeoutMs, extra);

  const info = await call<plugproto.PluginInfo>("getPluginInfo", new emptyproto.Empty());
  const configure = async (config: Record<string, string>, secretKeys: string[] = []) => {
    await call("configure", configureRequest(config, secretKeys));
  };
  await configure(opts.config ?? {}, opts.secretConfigKeys ?? []);

  return {
    project,
    stack,
    version: info.getVersion(),
    logs,
    get stdout() {
      return out.stdout;
    },
    get stderr() {
      return out.stderr;
    },
    waitForLog,
    urn: (type, name) => `urn:pulumi:${stack}::${project}::${type}::${name}`,

    async check(urn, olds, news) {
      const req = new provproto.CheckRequest();
      const { name, type } = urnParts(urn);
      req.setUrn(urn).setName(name).setType(type);
      req.setOlds(toStruct(olds)).setNews(toStruct(news));
      const res = await call<provproto.CheckResponse>("check", req);
      return {
        inputs: fromStruct(res.getInputs()),
        failures: res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
      };
    },

    async diff(id, urn, olds, news, oldInputs) {
      const req = new provproto.DiffRequest();
      const { name, type } = urnParts(urn);
      req.setId(id).setUrn(urn).setName(name).setType(type);
      req.setOlds(toStruct(olds)).setNews(toStruct(news));
      if (oldInputs) req.setOldInputs(toStruct(oldInputs));
      const res = await call<provproto.DiffResponse>("diff", req);
      const C = provproto.DiffResponse.DiffChanges;
      const changes = res.getChanges() === C.DIFF_SOME ? true : res.getChanges() === C.DIFF_NONE ? false : undefined;
      const kindNames = Object.fromEntries(Object.entries(provproto.PropertyDiff.Kind).map(([k, v]) => [v, k]));
      const detailedDiff: Record<string, PropertyDiff> = {};
      res.getDetaileddiffMap().forEach((v, k) => {
        detailedDiff[k] = { kind: String(kindNames[v.getKind()]), inputDiff: v.getInputdiff() };
      });
      return {
        changes,
        replaces: res.getReplacesList(),
        stables: res.getStablesList(),
        deleteBeforeReplace: res.getDeletebeforereplace(),
        diffs: res.getDiffsList(),
        hasDetailedDiff: res.getHasdetaileddiff(),
        detailedDiff,
      };
    },

    async create(urn, inputs, createOpts) {
      const req = new provproto.CreateRequest();
      const { name, type } = urnParts(urn);
      req.setUrn(urn).setName(name).setType(type);
      req.setProperties(toStruct(inputs)).setPreview(createOpts?.preview ?? false);
      const res = await call<provproto.CreateResponse>("create", req);
      return { id: res.getId(), outs: fromStruct(res.getProperties()) };
    },

    async read(id, urn, props, inputs) {
      const req = new provproto.ReadRequest();
      const { name, type } = urnParts(urn);
      req.setId(id).setUrn(urn).setName(name).setType(type);
      req.setProperties(toStruct(props));
      if (inputs) req.setInputs(toStruct(inputs));
      const res = await call<provproto.ReadResponse>("read", req);
      const newInputs = res.getInputs();
      return {
        id: res.getId() || undefined,
        outs: fromStruct(res.getProperties()),
        inputs: newInputs ? fromStruct(newInputs) : undefined,
      };
    },

    async update(id, urn, olds, news, oldInputs) {
      const req = new provproto.UpdateRequest();
      const { name, type } = urnParts(urn);
      req.setId(id).setUrn(urn).setName(name).setType(type);
      req.setOlds(toStruct(olds)).setNews(toStruct(news));
      if (oldInputs) req.setOldInputs(toStruct(oldInputs));
      const res = await call<provproto.UpdateResponse>("update", req);
      return { outs: fromStruct(res.getProperties()) };
    },

    async delete(id, urn, props, oldInputs) {
      const req = new provproto.DeleteRequest();
      const { name, type } = urnParts(urn);
      req.setId(id).setUrn(urn).setName(name).setType(type);
      req.setProperties(toStruct(props));
      if (oldInputs) req.setOldInputs(toStruct(oldInputs));
      await call("delete", req);
    },

    configure,

    async close() {
      client.close();
      if (!exited) {
        child.kill();
        await exitedPromise;
      }
    },
  };
}

/**
 * Serializes a provider exactly as `new pulumi.dynamic.Resource(provider, ...)` does
 * (dynamic/index.js: `serializeFunction(() => provider, { allowSecrets: true })`), giving the
 * text stored under `__provider`. Unlike the SDK we do not cache per instance.
 */
export async function serializeProvider(provider: pulumi.dynamic.ResourceProvider): Promise<string> {
  const sf = await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
  return sf.text;
}

/** What the driver remembers about a created resource, like one entry of a stack's state. */
export interface ResourceState {
  id: string;
  /** Checked inputs, `__provider` included. */
  inputs: Props;
  /** Outputs, `__provider` included. */
  outputs: Props;
}

/** Which step the engine took in {@link ResourceDriver.up}. */
export type StepOp = "create" | "update" | "replace" | "same";

/** Result of {@link ResourceDriver.up}. */
export interface UpResult {
  op: StepOp;
  id: string;
  outs: Props;
  inputs: Props;
  /** The provider's diff, when the resource already existed. */
  diff?: DiffResult;
}

/** Result of {@link ResourceDriver.preview}: check and diff only, nothing applied. */
export interface PreviewResult {
  op: StepOp;
  check: CheckResult;
  diff?: DiffResult;
}

/** Error for Check failures, which the engine reports as a failed step. */
export class CheckFailedError extends Error {
  /** The failures the provider returned. */
  readonly failures: CheckFailure[];

  constructor(urn: string, failures: CheckFailure[]) {
    super(`${urn}: check failed: ${failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`);
    this.name = "CheckFailedError";
    this.failures = failures;
  }
}

/** Deep equality on JSON-like values (what the engine's legacy input diff compares). */
function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(clean(a))) === JSON.stringify(sortKeys(clean(b)));
}

function sortKeys(v: any): any {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  }
  return v;
}

/**
 * Drives one dynamic resource through the engine's usual step sequence, keeping its state
 * between calls: up (check → diff → create/update/replace), refresh (read), destroy (delete).
 */
export class ResourceDriver {
  /** Current state, undefined before create and after destroy (or a refresh that found it gone). */
  state: ResourceState | undefined;

  /**
   * @param plugin a started plugin
   * @param type full type token, e.g. "pulumi-nodejs:dynamic/reviewadmin:OrgMember"
   * @param name resource name
   * @param provider serialized provider text (see {@link serializeProvider})
   */
  constructor(
    readonly plugin: Plugin,
    readonly type: string,
    readonly name: string,
    public provider: string,
  ) {}

  /** The resource's URN. */
  get urn(): string {
    return this.plugin.urn(this.type, this.name);
  }

  /** Inputs as the engine receives them from `dynamic.Resource`: a copy with `__provider` added. */
  private goal(inputs: Props): Props {
    return { ...clean(inputs), [PROVIDER_KEY]: this.provider };
  }

  private async checkOrThrow(olds: Props, news: Props): Promise<CheckResult> {
    const res = await this.plugin.check(this.urn, olds, news);
    if (res.failures.length > 0) throw new CheckFailedError(this.urn, res.failures);
    return res;
  }

  /**
   * Engine diff: asks the provider; when it answers DIFF_UNKNOWN (no diff method, or
   * `changes` undefined) the engine compares old and new inputs itself, `__provider` included.
   */
  private async engineDiff(state: ResourceState, news: Props): Promise<{ diff: DiffResult; changed: boolean }> {
    const diff = await this.plugin.diff(state.id, this.urn, state.outputs, news, state.inputs);
    const changed = diff.changes ?? !deepEqual(state.inputs, news);
    return { diff, changed };
  }

  /**
   * Check and diff without applying anything (like `pulumi preview`); inputs may hold UNKNOWN.
   * Throws CheckFailedError on check failures, as `up` does.
   */
  async preview(inputs: Props): Promise<PreviewResult> {
    const news = this.goal(inputs);
    const check = await this.checkOrThrow(this.state?.inputs ?? {}, news);
    if (!this.state) return { op: "create", check };
    const { diff, changed } = await this.engineDiff(this.state, check.inputs);
    const op: StepOp = !changed ? "same" : diff.replaces.length > 0 ? "replace" : "update";
    return { op, check, diff };
  }

  /** Deploys `inputs` (without `__provider`): create, update, replace or nothing. */
  async up(inputs: Props): Promise<UpResult> {
    const news = this.goal(inputs);
    const old = this.state;
    const checked = await this.checkOrThrow(old?.inputs ?? {}, news);

    if (!old) {
      const created = await this.createChecked(checked.inputs);
      return { op: "create", ...created };
    }

    const { diff, changed } = await this.engineDiff(old, checked.inputs);
    if (!changed) {
      // A "same" step keeps the old outputs and records the new inputs.
      this.state = { ...old, inputs: checked.inputs };
      return { op: "same", id: old.id, outs: old.outputs, inputs: checked.inputs, diff };
    }

    if (diff.replaces.length > 0) {
      // The engine re-checks with no olds before a replacement, so defaults are not carried over.
      const rechecked = await this.checkOrThrow({}, news);
      if (diff.deleteBeforeReplace) {
        await this.plugin.delete(old.id, this.urn, old.outputs, old.inputs);
        this.state = undefined;
        const created = await this.createChecked(rechecked.inputs);
        return { op: "replace", ...created, diff };
      }
      const created = await this.createChecked(rechecked.inputs);
      await this.plugin.delete(old.id, this.urn, old.outputs, old.inputs);
      return { op: "replace", ...created, diff };
    }

    const updated = await this.plugin.update(old.id, this.urn, old.outputs, checked.inputs, old.inputs);
    this.state = { id: old.id, inputs: checked.inputs, outputs: updated.outs };
    return { op: "update", id: old.id, outs: updated.outs, inputs: checked.inputs, diff };
  }

  private async createChecked(inputs: Props): Promise<{ id: string; outs: Props; inputs: Props }> {
    let created: CreateResult;
    try {
      created = await this.plugin.create(this.urn, inputs);
    } catch (e) {
      // Partial failure: the engine records the half-created resource, then fails the step.
      if (e instanceof PluginError && e.initFailure?.id) {
        this.state = { id: e.initFailure.id, inputs, outputs: e.initFailure.properties };
      }
      throw e;
    }
    if (!created.id) throw new Error(`${this.urn}: provider did not return an ID from Create`);
    this.state = { id: created.id, inputs, outputs: created.outs };
    return { ...created, inputs };
  }

  /** Refresh: reads with stored outputs and inputs; returns the new state, undefined if gone. */
  async refresh(): Promise<ResourceState | undefined> {
    if (!this.state) throw new Error(`${this.urn}: nothing to refresh`);
    const old = this.state;
    const res = await this.plugin.read(old.id, this.urn, old.outputs, old.inputs);
    if (res.id === undefined) {
      this.state = undefined;
      return undefined;
    }
    this.state = { id: res.id, outputs: res.outs, inputs: res.inputs ?? old.inputs };
    return this.state;
  }

  /** Destroy: deletes with stored outputs and forgets the state. */
  async destroy(): Promise<void> {
    if (!this.state) return;
    await this.plugin.delete(this.state.id, this.urn, this.state.outputs, this.state.inputs);
    this.state = undefined;
  }
}
