/**
 * The plugin face: the `reviewadmin` resource provider plugin, a gRPC server speaking Pulumi's
 * provider protocol over the same resource implementations the dynamic face runs (runtime.ts).
 * Programs in any Pulumi language use it through the schema (schema.generated.ts); what the
 * dynamic face cannot do, this one does:
 *
 * - Configure takes the provider's settings (the stack's `reviewadmin:*` config for the default
 *   provider; an explicit provider's own key and base URL). The engine starts one plugin process
 *   per provider and run, so the server's one run (run.ts) is that provider's in that run;
 * - CheckConfig refuses a bad setting at preview, naming the key and the rule;
 * - a preview reaches Create and Update (supportsPreview), which is how this face learns that a run
 *   is a preview: what must fail a preview (the drift gate, anti-lockout) fails it, as under the
 *   dynamic face;
 * - Diff returns a detailed diff: one path per changed input, one per changed map entry
 *   (detailedDiff.ts), so one changed person is one line of `pulumi preview --diff`;
 * - Read with no stored state is an import: the id alone says what to read (importIds.ts);
 * - Invoke runs the data sources as the schema's functions (`reviewadmin:index:getOrganization`).
 *
 * Values cross as plain JavaScript (Struct.toJavaScript), secrets unwrapped by the engine
 * (acceptSecrets false), preview unknowns as the SDK's placeholder: what the dynamic plugin passes,
 * so the implementations see the same values under both faces.
 */
import { createRequire } from "node:module";
import { kindImplementation, resourceKinds } from "../runtime";
import { attachToServer, carryUrn } from "../pluginHost";
import { CONFIG_NAMESPACE, SETTINGS, settingsFromConfig } from "../settings";
import { QUIET_FIELDS } from "../resources/support/lifecycle";
import { engineSink } from "../resources/support/messages";
import { Run } from "../resources/support/run";
import { detailedDiff } from "./detailedDiff";
import { LISTS, readForImport } from "./importIds";
import { SCHEMA } from "./schema.generated";
import * as data from "../data";

/** The package name: type tokens are `reviewadmin:index:<Kind>`. */
export const PACKAGE = "reviewadmin";

// The SDK's own copies of gRPC and the protocol's messages (it depends on them; we do not).
const fromSdk = createRequire(require.resolve("@pulumi/pulumi/package.json"));
/* eslint-disable @typescript-eslint/no-explicit-any -- generated protobuf classes without usable types here */
const grpc = fromSdk("@grpc/grpc-js") as any;
const provproto = fromSdk("./proto/provider_pb") as any;
const provrpc = fromSdk("./proto/provider_grpc_pb") as any;
const plugproto = fromSdk("./proto/plugin_pb") as any;
const statusproto = fromSdk("./proto/status_pb") as any;
const structproto = fromSdk("google-protobuf/google/protobuf/struct_pb") as any;
const emptyproto = fromSdk("google-protobuf/google/protobuf/empty_pb") as any;
const anyproto = fromSdk("google-protobuf/google/protobuf/any_pb") as any;
type Req = any;
type Call = { request: Req };
type Callback = (err: unknown, value?: unknown, metadata?: unknown) => void;
/* eslint-enable @typescript-eslint/no-explicit-any */

/** The kind a type token names (`reviewadmin:index:OrgMember` → OrgMember); throws for another package's. */
export function kindOfType(type: string): string {
  const [pkg, , kind] = type.split(":");
  if (pkg !== PACKAGE || !kind) throw new Error(`pulumi-reviewadmin: not a type of this package: '${type}'`);
  return kind;
}

/** The type a URN names (`urn:pulumi:stack::project::reviewadmin:index:OrgMember::name`). */
function typeOfUrn(urn: string): string {
  const parts = urn.split("::");
  const qualified = parts[2] ?? "";
  return qualified.split("$").at(-1) ?? "";
}

const plain = (struct: { toJavaScript(): unknown } | undefined): Record<string, unknown> =>
  (struct?.toJavaScript() as Record<string, unknown> | undefined) ?? {};

/** A value as a Struct: undefined fields dropped (Struct has no undefined). */
function toStruct(value: unknown): unknown {
  return structproto.Struct.fromJavaScript(JSON.parse(JSON.stringify(value ?? {})));
}

/** Inputs without the dynamic face's provider text (the implementations add it back as undefined). */
function withoutProviderText(o: Record<string, unknown>): Record<string, unknown> {
  const { __provider: _p, ...rest } = o;
  return rest;
}

/** An error worded for the user, as gRPC carries it; with an id, a create that half-happened. */
function grpcError(e: unknown): { code: number; message: string; metadata: unknown } {
  const err = e as { message?: string; id?: string; properties?: unknown; reasons?: string[] };
  const message = err?.message ?? String(e);
  const metadata = new grpc.Metadata();
  if (err?.id) {
    // The engine keeps the half-created resource with these properties (ErrorResourceInitFailed).
    const status = new statusproto.Status();
    status.setCode(grpc.status.UNKNOWN);
    status.setMessage(message);
    const detail = new provproto.ErrorResourceInitFailed();
    detail.setId(err.id);
    detail.setProperties(toStruct(withoutProviderText((err.properties as Record<string, unknown>) ?? {})));
    detail.setReasonsList(err.reasons ?? [message]);
    const any = new anyproto.Any();
    any.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
    status.addDetails(any);
    metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  }
  return { code: grpc.status.UNKNOWN, message, metadata };
}

/** Runs one request: its answer, or its failure worded once (no stack: the message is the user's). */
function handle(fn: (req: Req) => Promise<unknown>) {
  return (call: Call, callback: Callback) => {
    fn(call.request).then(
      (resp) => callback(null, resp),
      (e: unknown) => {
        const err = grpcError(e);
        callback(err, null, err.metadata);
      },
    );
  };
}

/** The settings' failures for the config a provider is given (CheckConfig), one per bad key. */
function configFailures(news: Record<string, unknown>): { property: string; reason: string }[] {
  const failures: { property: string; reason: string }[] = [];
  for (const [key, value] of Object.entries(news)) {
    if (key === "version" || key.startsWith("__")) continue;
    if (!(key in SETTINGS)) {
      failures.push({
        property: key,
        reason: `reviewadmin: unknown setting '${key}'; the settings are ${Object.keys(SETTINGS).join(", ")}`,
      });
      continue;
    }
    try {
      settingsFromConfig((k) => (k === key ? textOf(value) : undefined));
    } catch (err) {
      failures.push({ property: key, reason: (err as Error).message });
    }
  }
  return failures;
}

/** The SDK's marker of a secret value on the wire (a `{ [SIG]: SECRET, value }` object). */
const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";

/** The values of an object with secrets unwrapped (Configure's args carry them wrapped). */
function unwrapSecrets(o: Record<string, unknown>): Record<string, unknown> {
  const unwrap = (v: unknown): unknown =>
    v && typeof v === "object" && (v as Record<string, unknown>)[SIG] === SECRET ? (v as { value: unknown }).value : v;
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, unwrap(v)]));
}

/** A config value as the text `pulumi config set` would store (lists comma-separated). */
function textOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.join(",");
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * The service's methods, by gRPC method name, serving `run` (the engine starts a plugin process
 * for each provider in each run); a method left out answers UNIMPLEMENTED.
 */
function service(version: string, run: Run): Record<string, (call: Req, callback: Callback) => void> {
  return {
    getPluginInfo: handle(async () => {
      const info = new plugproto.PluginInfo();
      info.setVersion(version);
      return info;
    }),
    getSchema: handle(async () => {
      const resp = new provproto.GetSchemaResponse();
      resp.setSchema(JSON.stringify(servedSchema(version)));
      return resp;
    }),
    // Server-streaming: one Result per listed object (the list is small: one organization's people).
    list: (call: Req) => {
      const req = call.request;
      const token = req.getToken() as string;
      const lister = token.startsWith(`${PACKAGE}:index:`) ? LISTS[kindOfType(token)] : undefined;
      if (!lister) {
        call.destroy(
          Object.assign(new Error(`pulumi-reviewadmin: ${req.getToken()} cannot be listed`), { code: grpc.status.UNIMPLEMENTED }),
        );
        return;
      }
      const limit = Number(req.getLimit() ?? 0);
      lister.list(unwrapSecrets(plain(req.getQuery())), run.client).then(
        (items) => {
          for (const item of limit > 0 ? items.slice(0, limit) : items) {
            const result = new provproto.ListResponse.Result();
            result.setId(item.id);
            result.setName(item.name);
            const resp = new provproto.ListResponse();
            resp.setResult(result);
            call.write(resp);
          }
          call.end();
        },
        (e: unknown) => call.destroy(Object.assign(new Error((e as Error)?.message ?? String(e)), { code: grpc.status.UNKNOWN })),
      );
    },
    checkConfig: handle(async (req) => {
      const news = unwrapSecrets(plain(req.getNews()));
      const resp = new provproto.CheckResponse();
      resp.setInputs(req.getNews());
      resp.setFailuresList(configFailures(news).map(failure));
      return resp;
    }),
    diffConfig: handle(async (req) => {
      // Secrets may come wrapped on one side and not the other: compared as values.
      const olds = unwrapSecrets(plain(req.getOldInputs() ?? req.getOlds()));
      const changed = detailedDiff(olds, unwrapSecrets(plain(req.getNews())), { ignore: ["version"] });
      const resp = new provproto.DiffResponse();
      resp.setChanges(changed.length ? provproto.DiffResponse.DiffChanges.DIFF_SOME : provproto.DiffResponse.DiffChanges.DIFF_NONE);
      resp.setDiffsList([...new Set(changed.map((d) => d.path))]);
      return resp;
    }),
    configure: handle(async (req) => {
      const variables = req.getVariablesMap() as { get(k: string): string | undefined };
      const args = unwrapSecrets(plain(req.getArgs()));
      // Args carry an explicit provider's inputs (secrets wrapped); variables the same as text, keyed `reviewadmin:<key>`.
      run.configure(settingsFromConfig((key) => textOf(args[key]) ?? variables.get(`${CONFIG_NAMESPACE}:${key}`)));
      const resp = new provproto.ConfigureResponse();
      resp.setAcceptsecrets(false);
      // Previews reach create and update (preview: true): the plugin face's only way to know a run is one.
      resp.setSupportspreview(true);
      return resp;
    }),
    check: handle(async (req) => {
      const urn = req.getUrn() as string;
      const impl = kindImplementation(kindOfType(typeOfUrn(urn)));
      const result = await impl.check(run, carryUrn(plain(req.getOlds()), urn), carryUrn(plain(req.getNews()), urn));
      const resp = new provproto.CheckResponse();
      resp.setInputs(toStruct(withoutProviderText((result.inputs ?? plain(req.getNews())) as Record<string, unknown>)));
      resp.setFailuresList((result.failures ?? []).map(failure));
      return resp;
    }),
    diff: handle(async (req) => {
      const urn = req.getUrn() as string;
      const impl = kindImplementation(kindOfType(typeOfUrn(urn)));
      const news = plain(req.getNews());
      const result = await impl.diff(run, req.getId(), carryUrn(plain(req.getOlds()), urn), carryUrn(news, urn));
      const resp = new provproto.DiffResponse();
      const { DIFF_SOME, DIFF_NONE, DIFF_UNKNOWN } = provproto.DiffResponse.DiffChanges;
      resp.setChanges(result.changes === true ? DIFF_SOME : result.changes === false ? DIFF_NONE : DIFF_UNKNOWN);
      resp.setReplacesList(result.replaces ?? []);
      resp.setDeletebeforereplace(!!result.deleteBeforeReplace);
      if (result.changes) {
        const oldInputs = plain(req.getOldInputs());
        const paths = detailedDiff(withoutProviderText(oldInputs), news, { ignore: QUIET_FIELDS, replaces: result.replaces ?? [] });
        // Nothing the inputs show (a date passed, the service changed): the engine compares on its own.
        if (paths.length) {
          resp.setHasdetaileddiff(true);
          const map = resp.getDetaileddiffMap();
          for (const p of paths) {
            const d = new provproto.PropertyDiff();
            d.setKind(p.kind);
            d.setInputdiff(true);
            map.set(p.path, d);
          }
          resp.setDiffsList([...new Set(paths.map((p) => p.path.split("[")[0]))]);
        }
      }
      return resp;
    }),
    create: handle(async (req) => {
      const urn = req.getUrn() as string;
      const kind = kindOfType(typeOfUrn(urn));
      const impl = kindImplementation(kind);
      if (req.getPreview()) {
        // A preview: the plan-time checks that only run in a preview (an adopting roster names
        // whom it finds), then the inputs as the outputs, the rest unknown until up.
        run.learnPreview();
        const checked = await impl.check(run, {}, carryUrn(plain(req.getProperties()), urn));
        if (checked.failures?.length) throw new Error(checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; "));
        const resp = new provproto.CreateResponse();
        resp.setId("");
        resp.setProperties(toStruct(previewOutputs(kind, plain(req.getProperties()))));
        return resp;
      }
      const result = await impl.create(run, carryUrn(plain(req.getProperties()), urn));
      const resp = new provproto.CreateResponse();
      resp.setId(result.id);
      resp.setProperties(toStruct(withoutProviderText(result.outs ?? {})));
      return resp;
    }),
    read: handle(async (req) => {
      const urn = req.getUrn() as string;
      const kind = kindOfType(typeOfUrn(urn));
      const impl = kindImplementation(kind);
      const stored = withoutProviderText(plain(req.getProperties()));
      const id = req.getId() as string;
      // No stored state: `pulumi import` (or a `get`): the id says what to read.
      const result = Object.keys(stored).length
        ? await impl.read(run, id, carryUrn(stored, urn))
        : await readForImport(run, kind, impl, id, urn);
      const resp = new provproto.ReadResponse();
      if (!result.id) return resp; // gone
      resp.setId(result.id);
      resp.setProperties(toStruct(withoutProviderText(result.props ?? {})));
      const inputs = result.inputs ?? inputsFromState(kind, result.props ?? {});
      resp.setInputs(toStruct(withoutProviderText(inputs)));
      return resp;
    }),
    update: handle(async (req) => {
      const urn = req.getUrn() as string;
      const impl = kindImplementation(kindOfType(typeOfUrn(urn)));
      if (req.getPreview()) {
        // A preview: the diff again, now knowing it is one, so what must fail a preview does
        // (the drift gate naming who waits for a decision, anti-lockout); nothing is written.
        run.learnPreview();
        await impl.diff(run, req.getId(), carryUrn(plain(req.getOlds()), urn), carryUrn(plain(req.getNews()), urn));
        const resp = new provproto.UpdateResponse();
        resp.setProperties(toStruct(withoutProviderText({ ...plain(req.getOlds()), ...plain(req.getNews()) })));
        return resp;
      }
      const result = await impl.update(run, req.getId(), carryUrn(plain(req.getOlds()), urn), carryUrn(plain(req.getNews()), urn));
      const resp = new provproto.UpdateResponse();
      resp.setProperties(toStruct(withoutProviderText(result.outs ?? {})));
      return resp;
    }),
    delete: handle(async (req) => {
      const urn = req.getUrn() as string;
      const impl = kindImplementation(kindOfType(typeOfUrn(urn)));
      await impl.delete(run, req.getId(), carryUrn(plain(req.getProperties()), urn));
      return new emptyproto.Empty();
    }),
    invoke: handle(async (req) => {
      const fn = dataSourceOf(req.getTok() as string);
      const result = await fn(unwrapSecrets(plain(req.getArgs())), { client: run.client });
      const resp = new provproto.InvokeResponse();
      resp.setReturn(toStruct(result));
      return resp;
    }),
    cancel: handle(async () => new emptyproto.Empty()),
  };
}

/** The schema as served: the generated one, this version, and the `listInputs` of the kinds List serves. */
function servedSchema(version: string): unknown {
  const resources = Object.fromEntries(
    Object.entries(SCHEMA.resources).map(([token, r]) => {
      const lister = LISTS[kindOfType(token)];
      return [token, lister ? { ...r, listInputs: { properties: lister.inputs, required: Object.keys(lister.inputs) } } : r];
    }),
  );
  return { ...SCHEMA, version, resources };
}

/** The SDK's placeholder for a value not known until up. */
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** A preview create's outputs: the inputs, and every other output of the kind unknown. */
function previewOutputs(kind: string, inputs: Record<string, unknown>): Record<string, unknown> {
  const resource = (SCHEMA.resources as Record<string, { properties: Record<string, unknown> }>)[`${PACKAGE}:index:${kind}`];
  const unknowns = Object.fromEntries(Object.keys(resource?.properties ?? {}).map((k) => [k, UNKNOWN]));
  return withoutProviderText({ ...unknowns, ...inputs });
}

/** The data source a function token names (`reviewadmin:index:getOrganization`), as the dynamic face exports it. */
function dataSourceOf(token: string): (args: unknown, opts: { client: unknown }) => Promise<unknown> {
  const name = token.split(":")[2] ?? "";
  const fn = (data as Record<string, unknown>)[name];
  if (!(token in SCHEMA.functions) || typeof fn !== "function")
    throw new Error(`pulumi-reviewadmin: no function '${token}' in this version`);
  return fn as (args: unknown, opts: { client: unknown }) => Promise<unknown>;
}

/** The inputs a state stands for, when a read gives none: the state's fields that are inputs of its kind. */
function inputsFromState(kind: string, props: Record<string, unknown>): Record<string, unknown> {
  const resource = (SCHEMA.resources as Record<string, { inputProperties: Record<string, unknown> }>)[`${PACKAGE}:index:${kind}`];
  const names = Object.keys(resource?.inputProperties ?? {});
  return Object.fromEntries(Object.entries(props).filter(([k, v]) => names.includes(k) && v !== undefined));
}

function failure(f: { property?: string; reason: string }): unknown {
  const out = new provproto.CheckFailure();
  out.setProperty(f.property ?? "");
  out.setReason(f.reason);
  return out;
}

/**
 * Starts the plugin: listens on a free loopback port and prints it (the engine reads it from
 * stdout), with the engine's address (the first argument) for messages.
 */
export async function serve(args: string[], version: string): Promise<void> {
  attachToServer(args[0], fromSdk);
  // Every kind must be in the schema, and the other way round (a test holds them equal too).
  const missing = resourceKinds().filter((k) => !(`${PACKAGE}:index:${k}` in SCHEMA.resources));
  if (missing.length) throw new Error(`pulumi-reviewadmin: the schema lacks ${missing.join(", ")}: run npm run generate`);
  const server = new grpc.Server({ "grpc.max_receive_message_length": 1024 * 1024 * 400 });
  server.addService(provrpc.ResourceProviderService, service(version, new Run({ messages: engineSink() })));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err: Error | null, p: number) =>
      err ? reject(err) : resolve(p),
    ),
  );
  console.log(String(port));
}
