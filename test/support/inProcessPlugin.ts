/**
 * The in-process driver: one simulated Pulumi run of the dynamic face, called in the test's own
 * process the way Pulumi's dynamic-provider plugin (`@pulumi/pulumi/cmd/dynamic-provider`) calls
 * it, with no child process and no dist/ (as pulumi-go-provider's `integration` package serves a
 * Go provider in the test's process).
 *
 * Each instance is one run: a fresh `Run` (provider/resources/support/run.ts) with the stack's
 * settings, its own client, claims and lists, and a message sink that keeps what the run says as
 * the plugin's log lines. What the plugin does around the provider is done here the same way:
 * values cross as protobuf Structs (undefined dropped) carrying their request's URN, each kind's
 * provider is configured once per run at its first call, `__provider` rides along in the answers,
 * and a failure carries the provider's message (and, for a create or update, the half-made
 * resource). What only a real process shows (its exit, its raw output, gRPC message limits) is
 * proved by the engine tier on the real plugin (support/providerWorld.ts `process: true`).
 */
import type { CheckResult, CreateResult, DiffResult, LogLine, ReadResult, UpdateResult } from "../../harness/pluginDriver";
import { PluginError } from "../../harness/pluginDriver";
import type { ProviderCalls } from "../../harness/engineSteps";
import { fromStruct, PROVIDER_KEY, toStruct, UNKNOWN, type Props } from "../../harness/wire";
import { carryUrn } from "../../provider/pluginHost";
import { dynamicFace, type KindProvider } from "../../provider/runtime";
import { Run, type MessageSink } from "../../provider/resources/support/run";
import type * as pulumi from "@pulumi/pulumi";

/** Options of an in-process run: what the engine would start the plugin with. */
export interface InProcessOptions {
  /** The working folder (the program's): where the run's local records go. */
  cwd: string;
  /** Stack config, keys namespaced like "reviewadmin:apiKey" (secrets already decrypted, as the plugin gets them). */
  config: Record<string, string>;
  project?: string;
  stack?: string;
}

/** The kind a provider text of this package names (resourceClass.ts `providerSource`). */
function kindOfProviderText(text: unknown): string {
  const kind = typeof text === "string" ? /\.shim\("([A-Za-z]+)"\)/.exec(text)?.[1] : undefined;
  if (!kind) throw new Error(`the in-process driver serves this package's shim texts only, not ${JSON.stringify(text)}`);
  return kind;
}

/** A value as it reaches the provider: through a protobuf Struct, carrying the request's URN. */
const sent = (props: Props | undefined, urn: string): Props => carryUrn(fromStruct(toStruct(props)), urn);
/** A value as it reaches the engine: through a protobuf Struct. */
const answered = (props: Props | undefined): Props => fromStruct(toStruct(props));

/** A provider failure as the plugin reports it: the message, and a create's or update's half-made resource. */
function failure(rpc: string, err: unknown): PluginError {
  const e = err as { message?: string; id?: string; properties?: Props; reasons?: string[] };
  const message = e?.message ?? String(err);
  const initFailure =
    (rpc === "create" || rpc === "update") && e?.id
      ? { id: e.id, properties: answered(e.properties ?? {}), reasons: e.reasons ?? [] }
      : undefined;
  return new PluginError(rpc, 2, message, initFailure);
}

/** One simulated run of the dynamic face in this process (see the file comment). */
export class InProcessPlugin implements ProviderCalls {
  /** The run this driver serves. */
  readonly run: Run;
  /** What the run said, as the plugin prints it without an engine: "info: [runtime] ..." on stdout, warnings on stderr. */
  readonly logs: LogLine[] = [];
  readonly #face: KindProvider;
  readonly #configured = new Map<string, Promise<void>>();
  readonly #config: Record<string, string>;
  readonly #listeners = new Set<() => void>();
  readonly #project: string;
  readonly #stack: string;

  constructor(opts: InProcessOptions) {
    const sink: MessageSink = {
      send: async (level, message) => {
        // As the plugin's output is read: line by line (a roster's preview says one person a line).
        const stream = level === "warning" ? "stderr" : "stdout";
        for (const line of `${level}: [runtime] ${message}`.split("\n")) this.logs.push({ stream, line });
        for (const l of this.#listeners) l();
      },
    };
    this.run = new Run({ messages: sink, folder: opts.cwd });
    this.#face = dynamicFace(this.run);
    this.#config = opts.config;
    this.#project = opts.project ?? "test-project";
    this.#stack = opts.stack ?? "test";
  }

  /** Everything the run printed on stdout. */
  get stdout(): string {
    return this.logs
      .filter((l) => l.stream === "stdout")
      .map((l) => `${l.line}\n`)
      .join("");
  }

  /** Everything the run printed on stderr. */
  get stderr(): string {
    return this.logs
      .filter((l) => l.stream === "stderr")
      .map((l) => `${l.line}\n`)
      .join("");
  }

  /** The first log line that matches, waiting for it up to `timeoutMs`. */
  waitForLog(match: string | RegExp | ((l: LogLine) => boolean), timeoutMs = 5_000): Promise<LogLine> {
    const test =
      typeof match === "function" ? match : (l: LogLine) => (typeof match === "string" ? l.line.includes(match) : match.test(l.line));
    return new Promise((resolve, reject) => {
      const look = () => {
        const found = this.logs.find(test);
        if (!found) return false;
        this.#listeners.delete(onLine);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const onLine = () => void look();
      const timer = setTimeout(() => {
        this.#listeners.delete(onLine);
        reject(new Error(`no log line matching ${String(match)} within ${timeoutMs} ms; the run said:\n${this.stdout}${this.stderr}`));
      }, timeoutMs);
      if (!look()) this.#listeners.add(onLine);
    });
  }

  urn(type: string, name: string): string {
    return `urn:pulumi:${this.#stack}::${this.#project}::${type}::${name}`;
  }

  /** The provider of the kind `props` name, configured once per run at its first call (as the plugin's provider cache does). */
  async #provider(props: Props): Promise<pulumi.dynamic.ResourceProvider> {
    const kind = kindOfProviderText(props[PROVIDER_KEY]);
    const provider = this.#face(kind);
    let configured = this.#configured.get(kind);
    if (!configured) {
      const config = { get: (key: string) => this.#config[key] } as unknown as pulumi.dynamic.ConfigureRequest["config"];
      configured = provider.configure ? provider.configure({ config }) : Promise.resolve();
      this.#configured.set(kind, configured);
    }
    await configured;
    return provider;
  }

  async check(urn: string, olds: Props, news: Props): Promise<CheckResult> {
    try {
      const o = sent(olds, urn);
      const n = sent(news, urn);
      const provider = await this.#provider(n[PROVIDER_KEY] === UNKNOWN ? o : n);
      const result = await provider.check!(o, n);
      return {
        inputs: answered({ ...(result.inputs ?? n), [PROVIDER_KEY]: n[PROVIDER_KEY] }),
        failures: (result.failures ?? []).map((f) => ({ property: f.property, reason: f.reason })),
      };
    } catch (err) {
      throw failure("check", err);
    }
  }

  async diff(id: string, urn: string, olds: Props, news: Props): Promise<DiffResult> {
    try {
      const o = sent(olds, urn);
      const n = sent(news, urn);
      const result = await (await this.#provider(n[PROVIDER_KEY] === UNKNOWN ? o : n)).diff!(id, o, n);
      return {
        changes: result.changes,
        replaces: result.replaces ?? [],
        stables: [],
        deleteBeforeReplace: !!result.deleteBeforeReplace,
        diffs: [],
        hasDetailedDiff: false,
        detailedDiff: {},
      };
    } catch (err) {
      throw failure("diff", err);
    }
  }

  async create(urn: string, inputs: Props): Promise<CreateResult> {
    try {
      const props = sent(inputs, urn);
      const result = await (await this.#provider(props)).create(props);
      return { id: result.id, outs: answered({ ...result.outs, [PROVIDER_KEY]: props[PROVIDER_KEY] }) };
    } catch (err) {
      throw failure("create", err);
    }
  }

  async read(id: string, urn: string, props: Props, inputs?: Props): Promise<ReadResult> {
    try {
      let stored = sent(props, urn);
      if (Object.keys(stored).length === 0 && inputs) stored = sent(inputs, urn);
      const result = await (await this.#provider(stored)).read!(id, stored);
      return {
        id: result.id || undefined,
        outs: answered({ ...result.props, [PROVIDER_KEY]: stored[PROVIDER_KEY] }),
        inputs: result.inputs ? answered({ ...result.inputs, [PROVIDER_KEY]: stored[PROVIDER_KEY] }) : undefined,
      };
    } catch (err) {
      throw failure("read", err);
    }
  }

  async update(id: string, urn: string, olds: Props, news: Props): Promise<UpdateResult> {
    try {
      const n = sent(news, urn);
      const result = (await (await this.#provider(n)).update!(id, sent(olds, urn), n)) ?? {};
      return { outs: answered({ ...result.outs, [PROVIDER_KEY]: n[PROVIDER_KEY] }) };
    } catch (err) {
      throw failure("update", err);
    }
  }

  async delete(id: string, urn: string, props: Props): Promise<void> {
    try {
      const p = sent(props, urn);
      await (
        await this.#provider(p)
      ).delete!(id, p);
    } catch (err) {
      throw failure("delete", err);
    }
  }

  /** Ends the run: closes its client. */
  async close(): Promise<void> {
    await this.run.close();
  }
}
