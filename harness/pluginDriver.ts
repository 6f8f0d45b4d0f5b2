/**
 * Drives the REAL Pulumi dynamic-provider plugin (`@pulumi/pulumi/cmd/dynamic-provider`) over
 * gRPC, the way the engine does, since the Pulumi CLI cannot be installed here: `startPlugin`
 * gives a typed client of one plugin process, `serializeProvider` the `__provider` text it runs.
 * What the plugin does and why the driver works this way: docs/harness.md.
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
import { fromStruct, GRPC_CHANNEL_OPTIONS, secretValue, toStruct, type Props } from "./wire";

/** Options of {@link startPlugin}. */
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
  /** Under the engine, the URN of the resource the message is attached to (none: the stack's). */
  urn?: string;
}

/** A Check failure as returned by the provider. */
export interface CheckFailure {
  property: string;
  reason: string;
}

/** What Check returned: the checked inputs (`__provider` included) and the provider's failures. */
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

/** What Create returned: the new id and the outputs (`__provider` included). */
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

/** What Update returned: the outputs after the update (`__provider` included). */
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
  constructor(
    /** Name of the RPC that failed, e.g. "create". */
    readonly rpc: string,
    /** gRPC status code (2 = UNKNOWN for errors thrown by provider code). */
    readonly code: number,
    message: string,
    /** Set when the provider threw an error with `id` during create/update. */
    readonly initFailure?: ResourceInitFailure,
  ) {
    super(message);
    this.name = "PluginError";
  }
}

/**
 * Starts the real dynamic-provider plugin in `opts.cwd`, connects, calls GetPluginInfo and
 * Configure, and returns its client. Always `close()` it (e.g. in afterAll).
 */
export function startPlugin(opts: PluginOptions): Promise<Plugin> {
  return Plugin.start(opts);
}

/**
 * Serializes a provider exactly as `new pulumi.dynamic.Resource(provider, ...)` does
 * (dynamic/index.js: `serializeFunction(() => provider, { allowSecrets: true })`), giving the
 * text stored under `__provider`. Unlike the SDK it does not cache per instance.
 */
export async function serializeProvider(provider: pulumi.dynamic.ResourceProvider): Promise<string> {
  const sf = await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
  return sf.text;
}

/** A running dynamic-provider plugin process with a connected gRPC client; made by {@link startPlugin}. */
export class Plugin {
  private constructor(
    private readonly proc: PluginProcess,
    private readonly client: provrpc.ResourceProviderClient,
    private readonly timeoutMs: number,
    /** Project name used for URNs and `Config.get` without namespace. */
    readonly project: string,
    /** Stack name used for URNs. */
    readonly stack: string,
    /** Version reported by GetPluginInfo (the @pulumi/pulumi version). */
    readonly version: string,
  ) {}

  /** Spawns the plugin, connects, sends GetPluginInfo and Configure; kills the process if any of that fails. */
  static async start(opts: PluginOptions): Promise<Plugin> {
    const project = opts.project ?? "test-project";
    const stack = opts.stack ?? "test";
    const timeoutMs = opts.callTimeoutMs ?? 30_000;
    const proc = PluginProcess.spawn(opts.cwd, project, stack, opts.env);
    let port: number;
    try {
      port = await proc.port;
    } catch (e) {
      // Not awaited: after a spawn error no exit event may ever come.
      void proc.kill();
      throw e;
    }
    const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), GRPC_CHANNEL_OPTIONS);
    try {
      const info = await unary<plugproto.PluginInfo>(client, "getPluginInfo", new emptyproto.Empty(), timeoutMs, () => proc.exitNote());
      const plugin = new Plugin(proc, client, timeoutMs, project, stack, info.getVersion());
      await plugin.configure(opts.config ?? {}, opts.secretConfigKeys ?? []);
      return plugin;
    } catch (e) {
      client.close();
      await proc.kill();
      throw e;
    }
  }

  /** Lines printed by the plugin after its port line (provider console output, pulumi.log, stacks). */
  get logs(): LogLine[] {
    return this.proc.logs;
  }

  /** Everything printed on stdout after the port line. */
  get stdout(): string {
    return this.proc.text.stdout;
  }

  /** Everything printed on stderr. */
  get stderr(): string {
    return this.proc.text.stderr;
  }

  /**
   * Waits for a log line (already printed or upcoming). Needed because the plugin's stdout and
   * its gRPC replies travel on different pipes: a line printed during a call may arrive after it.
   */
  waitForLog(match: string | RegExp | ((l: LogLine) => boolean), timeoutMs = 5_000): Promise<LogLine> {
    return this.proc.waitForLog(match, timeoutMs);
  }

  /** Builds `urn:pulumi:<stack>::<project>::<type>::<name>`. */
  urn(type: string, name: string): string {
    return `urn:pulumi:${this.stack}::${this.project}::${type}::${name}`;
  }

  /** Sends Configure again (e.g. to change config); provider.configure only reruns for new `__provider` texts. */
  async configure(config: Record<string, string>, secretConfigKeys: string[] = []): Promise<void> {
    await this.call("configure", configureRequest(config, secretConfigKeys));
  }

  /** Check RPC: `olds` are the previous inputs ({} on create). */
  async check(urn: string, olds: Props, news: Props): Promise<CheckResult> {
    const req = withUrn(new provproto.CheckRequest(), urn);
    req.setOlds(toStruct(olds)).setNews(toStruct(news));
    const res = await this.call<provproto.CheckResponse>("check", req);
    return {
      inputs: fromStruct(res.getInputs()),
      failures: res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  /** Diff RPC: `olds` are the previous OUTPUTS, `news` the checked inputs. */
  async diff(id: string, urn: string, olds: Props, news: Props, oldInputs?: Props): Promise<DiffResult> {
    const req = withUrn(new provproto.DiffRequest(), urn).setId(id);
    req.setOlds(toStruct(olds)).setNews(toStruct(news));
    if (oldInputs) req.setOldInputs(toStruct(oldInputs));
    const res = await this.call<provproto.DiffResponse>("diff", req);
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
  }

  /** Create RPC with checked inputs. */
  async create(urn: string, inputs: Props, opts?: { preview?: boolean }): Promise<CreateResult> {
    const req = withUrn(new provproto.CreateRequest(), urn);
    req.setProperties(toStruct(inputs)).setPreview(opts?.preview ?? false);
    const res = await this.call<provproto.CreateResponse>("create", req);
    return { id: res.getId(), outs: fromStruct(res.getProperties()) };
  }

  /** Read RPC (refresh): `props` are the stored outputs, `inputs` the stored inputs. */
  async read(id: string, urn: string, props: Props, inputs?: Props): Promise<ReadResult> {
    const req = withUrn(new provproto.ReadRequest(), urn).setId(id);
    req.setProperties(toStruct(props));
    if (inputs) req.setInputs(toStruct(inputs));
    const res = await this.call<provproto.ReadResponse>("read", req);
    const newInputs = res.getInputs();
    return {
      // The plugin answers a read that found nothing ({}) with id "".
      id: res.getId() || undefined,
      outs: fromStruct(res.getProperties()),
      inputs: newInputs ? fromStruct(newInputs) : undefined,
    };
  }

  /** Update RPC: `olds` are the previous OUTPUTS, `news` the checked inputs. */
  async update(id: string, urn: string, olds: Props, news: Props, oldInputs?: Props): Promise<UpdateResult> {
    const req = withUrn(new provproto.UpdateRequest(), urn).setId(id);
    req.setOlds(toStruct(olds)).setNews(toStruct(news));
    if (oldInputs) req.setOldInputs(toStruct(oldInputs));
    const res = await this.call<provproto.UpdateResponse>("update", req);
    return { outs: fromStruct(res.getProperties()) };
  }

  /** Delete RPC with the stored outputs. */
  async delete(id: string, urn: string, props: Props, oldInputs?: Props): Promise<void> {
    const req = withUrn(new provproto.DeleteRequest(), urn).setId(id);
    req.setProperties(toStruct(props));
    if (oldInputs) req.setOldInputs(toStruct(oldInputs));
    await this.call("delete", req);
  }

  /** Closes the client and kills the plugin process. */
  async close(): Promise<void> {
    this.client.close();
    await this.proc.kill();
  }

  private call<Res>(method: string, req: unknown): Promise<Res> {
    return unary<Res>(this.client, method, req, this.timeoutMs, () => this.proc.exitNote());
  }
}

/**
 * The plugin's child process: its port (the first stdout line) and everything it prints after,
 * as log lines.
 */
class PluginProcess {
  readonly logs: LogLine[] = [];
  readonly text = { stdout: "", stderr: "" };
  /** The port the plugin listens on; rejects if it exits or prints something else first. */
  readonly port: Promise<number>;
  private readonly exited: Promise<void>;
  private hasExited = false;
  /** Pending waitForLog calls, re-evaluated on every new line. */
  private readonly waiters = new Set<() => void>();

  static spawn(cwd: string, project: string, stack: string, env: Record<string, string | undefined> | undefined): PluginProcess {
    // Resolved from cwd, like the engine's pulumi-resource-pulumi-nodejs launcher
    // (`node ./node_modules/@pulumi/pulumi/cmd/dynamic-provider`): the same @pulumi/pulumi that
    // the serialized providers will require.
    const script = createRequire(path.join(cwd, "__harness__.js")).resolve("@pulumi/pulumi/cmd/dynamic-provider/index.js");
    const child = spawn(process.execPath, [script, "127.0.0.1:0" /* engine address: checked, never used */], {
      cwd,
      env: {
        ...process.env,
        PULUMI_NODEJS_PROJECT: project,
        PULUMI_NODEJS_STACK: stack,
        PULUMI_NODEJS_ROOT_DIRECTORY: cwd,
        // A test runner's settings must not leak in: the engine gives the plugin no engine/monitor.
        PULUMI_NODEJS_ENGINE: undefined,
        PULUMI_NODEJS_MONITOR: undefined,
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    return new PluginProcess(child);
  }

  private constructor(private readonly child: ChildProcess) {
    this.exited = new Promise((resolve) =>
      child.on("exit", () => {
        this.hasExited = true;
        resolve();
      }),
    );
    this.port = this.readOutput();
  }

  /** What to add to an error when the process has died, since gRPC then only says UNAVAILABLE. */
  exitNote(): string {
    return this.hasExited ? `\n(plugin process has exited; stderr:\n${this.text.stderr})` : "";
  }

  waitForLog(match: string | RegExp | ((l: LogLine) => boolean), timeoutMs: number): Promise<LogLine> {
    const test =
      typeof match === "function" ? match : (l: LogLine) => (typeof match === "string" ? l.line.includes(match) : match.test(l.line));
    return new Promise((resolve, reject) => {
      const poll = () => {
        const hit = this.logs.find(test);
        if (!hit) return false;
        this.waiters.delete(poll);
        clearTimeout(timer);
        resolve(hit);
        return true;
      };
      const timer = setTimeout(() => {
        this.waiters.delete(poll);
        reject(
          new Error(
            `no plugin log line matching ${String(match)} within ${timeoutMs} ms; got:\n${this.logs.map((l) => l.line).join("\n")}`,
          ),
        );
      }, timeoutMs);
      if (!poll()) this.waiters.add(poll);
    });
  }

  /** Kills the process (unless it already exited) and waits for it to exit. */
  async kill(): Promise<void> {
    if (this.hasExited) return;
    this.child.kill();
    await this.exited;
  }

  /** Splits stdout/stderr into lines: the first stdout line is the port, the rest go to `logs`. */
  private readOutput(): Promise<number> {
    return new Promise((resolve, reject) => {
      let port: number | undefined;
      const partial = { stdout: "", stderr: "" };
      const onData = (stream: "stdout" | "stderr") => (chunk: Buffer) => {
        partial[stream] += chunk.toString("utf8");
        let nl: number;
        while ((nl = partial[stream].indexOf("\n")) >= 0) {
          const line = partial[stream].slice(0, nl);
          partial[stream] = partial[stream].slice(nl + 1);
          if (stream === "stdout" && port === undefined) {
            port = Number(line.trim());
            if (!Number.isInteger(port) || port <= 0) reject(new Error(`plugin printed no port: ${line}`));
            else resolve(port);
            continue;
          }
          this.text[stream] += line + "\n";
          this.logs.push({ stream, line });
          this.waiters.forEach((w) => w());
        }
      };
      this.child.stdout!.on("data", onData("stdout"));
      this.child.stderr!.on("data", onData("stderr"));
      this.child.on("error", reject);
      this.child.on("exit", (code, signal) => {
        if (port === undefined) {
          reject(
            new Error(`plugin exited (code ${code}, signal ${signal}) before printing its port:\n${this.text.stderr}${partial.stderr}`),
          );
        }
      });
    });
  }
}

/** Sets the URN, and the name and type the engine also sends with each request. */
function withUrn<Req extends { setUrn(v: string): Req; setName(v: string): Req; setType(v: string): Req }>(req: Req, urn: string): Req {
  const parts = urn.split("::");
  return req
    .setUrn(urn)
    .setName(parts[3] ?? "")
    .setType(parts[2] ?? "");
}

/** The ConfigureRequest the engine sends: config in `args`, secrets wrapped. */
function configureRequest(config: Record<string, string>, secretKeys: string[]): provproto.ConfigureRequest {
  const req = new provproto.ConfigureRequest();
  const args: Props = {};
  for (const [k, v] of Object.entries(config)) {
    args[k] = secretKeys.includes(k) ? secretValue(v) : v;
    // The engine also sends plain-text `variables`; the dynamic plugin ignores them.
    req.getVariablesMap().set(k, v);
  }
  // Always a Struct, even empty: the plugin fails on a Configure without `args` and never answers.
  req.setArgs(toStruct(args));
  req.setAcceptsecrets(true);
  req.setAcceptresources(true);
  req.setSendsOldInputs(true);
  req.setSendsOldInputsToDelete(true);
  return req;
}

/** One unary call of the generated client, as a promise; failures become {@link PluginError}. */
function unary<Res>(client: grpc.Client, method: string, req: unknown, timeoutMs: number, exitNote: () => string): Promise<Res> {
  return new Promise((resolve, reject) => {
    const deadline = new Date(Date.now() + timeoutMs);
    (client as any)[method](req, new grpc.Metadata(), { deadline }, (err: grpc.ServiceError | null, res: Res) => {
      if (err) reject(toPluginError(method, err, exitNote));
      else resolve(res);
    });
  });
}

/** A PluginError from a grpc-js ServiceError, with ErrorResourceInitFailed unpacked if present. */
function toPluginError(rpc: string, err: grpc.ServiceError, exitNote: () => string): PluginError {
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
  if (err.code === grpc.status.UNAVAILABLE) message += exitNote();
  return new PluginError(rpc, err.code, message, initFailure);
}
