/**
 * The seam between this package and the internals of @pulumi/pulumi it relies on (issue 56): the
 * plugin face's server (provider/plugin/server.ts) speaks the provider protocol with the SDK's own
 * generated protobuf modules and grpc-js, and provider/pluginHost.ts patches the dynamic-provider
 * plugin's request getters and reads its request order (the id read after the provider loads).
 * None of that is the SDK's public API: a minor release may move it, and both would then quietly
 * lose URNs or fail to start. This test names what each side expects, so an SDK upgrade fails here
 * first, with a message saying what moved, instead of in a user's run.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import { createRequire } from "node:module";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

const sdkRoot = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
const fromSdk = createRequire(path.join(sdkRoot, "package.json"));
const sdkVersion = (JSON.parse(fs.readFileSync(path.join(sdkRoot, "package.json"), "utf8")) as { version: string }).version;

/** What is missing of `names` (dotted paths) on the module `id` loaded from the SDK (`load`: the SDK's require). */
function missing(id: string, names: string[], load: NodeJS.Require = fromSdk): string[] {
  let mod: Record<string, unknown>;
  try {
    mod = load(id) as Record<string, unknown>;
  } catch (err) {
    return [`${id} does not load (${(err as Error).message.split("\n")[0]})`];
  }
  return names
    .filter((n) => {
      let v: unknown = mod;
      for (const part of n.split(".")) v = v == null ? undefined : (v as Record<string, unknown>)[part];
      return v === undefined;
    })
    .map((n) => `${id}: ${n}`);
}

/** The getters or setters each message's prototype must have. */
const methods = (id: string, byMessage: Record<string, string[]>, load: NodeJS.Require = fromSdk) =>
  missing(
    id,
    Object.entries(byMessage).flatMap(([message, ms]) => ms.map((m) => `${message}.prototype.${m}`)),
    load,
  );

const why = (problems: string[]) =>
  `@pulumi/pulumi ${sdkVersion} is not shaped as this package expects (test it before widening the SDK range in package.json):\n  ${problems.join("\n  ")}`;

describe(`the SDK seam (@pulumi/pulumi ${sdkVersion})`, () => {
  it("the plugin face's server finds the protocol's messages, services and codecs where it loads them", () => {
    const problems = [
      ...missing("@grpc/grpc-js", ["Server", "ServerCredentials.createInsecure", "Metadata", "status.UNIMPLEMENTED", "status.UNKNOWN"]),
      ...missing("./proto/provider_pb", [
        "CheckFailure",
        "CheckResponse",
        "ConfigureResponse",
        "CreateResponse",
        "DiffResponse.DiffChanges",
        "ErrorResourceInitFailed",
        "GetSchemaResponse",
        "InvokeResponse",
        "ListResponse.Result",
        "PropertyDiff",
        "ReadResponse",
        "UpdateResponse",
      ]),
      ...missing("./proto/provider_grpc_pb", ["ResourceProviderService"]),
      ...missing("./proto/plugin_pb", ["PluginInfo"]),
      ...missing("./proto/status_pb", ["Status"]),
      ...missing("google-protobuf/google/protobuf/struct_pb", ["Struct.fromJavaScript", "Struct.prototype.toJavaScript"]),
      ...missing("google-protobuf/google/protobuf/empty_pb", ["Empty"]),
      ...missing("google-protobuf/google/protobuf/any_pb", ["Any"]),
    ];
    expect(problems, why(problems)).toEqual([]);
  });

  it("pluginHost finds the request getters it patches and the engine's Log service it calls", () => {
    const problems = [
      ...methods("./proto/provider_pb", {
        CheckRequest: ["getUrn", "getOlds", "getNews"],
        DiffRequest: ["getUrn", "getId", "getOlds", "getNews"],
        CreateRequest: ["getUrn", "getProperties"],
        ReadRequest: ["getUrn", "getId", "getProperties", "getInputs"],
        UpdateRequest: ["getUrn", "getId", "getOlds", "getNews"],
        DeleteRequest: ["getUrn", "getId", "getProperties"],
      }),
      ...missing("./proto/engine_grpc_pb", ["EngineClient.prototype.log"]),
      ...methods("./proto/engine_pb", { LogRequest: ["setSeverity", "setMessage", "setUrn", "setEphemeral"] }),
    ];
    expect(problems, why(problems)).toEqual([]);
  });

  it("the dynamic-provider plugin is where pluginHost looks, loads the provider by handler(), and reads the id after it", () => {
    const main = path.join(sdkRoot, "cmd", "dynamic-provider", "index.js");
    // pluginHost.attachToPlugin recognises the plugin by this path (require.main).
    expect(fs.existsSync(main), why([`no ${path.relative(sdkRoot, main)}`])).toBe(true);
    const source = fs.readFileSync(main, "utf8");
    const expected: [string, RegExp][] = [
      ["the provider is the handler() of the __provider text", /requireFromString\(providerString\)\.handler\(\)/],
      // A first request's URN is found by its id (pluginHost.hookRequestIds, run.ts urnOfId): read once the provider is loaded.
      ["diff reads the id after loading the provider", /getProvider\([\s\S]{0,200}?provider\.diff\(req\.getId\(\)/],
      ["update reads the id after loading the provider", /getProvider\([\s\S]{0,200}?provider\.update\(req\.getId\(\)/],
      ["delete reads the id after loading the provider", /getProvider\([\s\S]{0,200}?provider\.delete\(req\.getId\(\)/],
      ["each request's values come through Struct.toJavaScript", /req\.getProperties\(\)\.toJavaScript\(\)/],
    ];
    const problems = expected.filter(([, shape]) => !shape.test(source)).map(([what]) => `cmd/dynamic-provider/index.js: ${what}`);
    expect(problems, why(problems)).toEqual([]);
  });

  it("fails, naming what moved, against a doctored SDK: a getter renamed, a module gone", () => {
    const doctored = fs.mkdtempSync(path.join(os.tmpdir(), "doctored-sdk-"));
    try {
      fs.writeFileSync(path.join(doctored, "package.json"), JSON.stringify({ name: "@pulumi/pulumi", version: "3.999.0" }));
      fs.mkdirSync(path.join(doctored, "proto"));
      // CheckRequest's getUrn renamed, as a protobuf regeneration could.
      fs.writeFileSync(
        path.join(doctored, "proto", "provider_pb.js"),
        "class CheckRequest {} CheckRequest.prototype.getResourceUrn = () => ''; CheckRequest.prototype.getOlds = () => null; CheckRequest.prototype.getNews = () => null; exports.CheckRequest = CheckRequest;",
      );
      const load = createRequire(path.join(doctored, "package.json"));
      expect(methods("./proto/provider_pb", { CheckRequest: ["getUrn", "getOlds", "getNews"] }, load)).toEqual([
        "./proto/provider_pb: CheckRequest.prototype.getUrn",
      ]);
      expect(missing("./proto/engine_grpc_pb", ["EngineService"], load)[0]).toMatch(
        /^\.\/proto\/engine_grpc_pb does not load \(Cannot find module/,
      );
      expect(why(["./proto/provider_pb: CheckRequest.prototype.getUrn"])).toContain("is not shaped as this package expects");
    } finally {
      fs.rmSync(doctored, { recursive: true, force: true });
    }
  });
});
