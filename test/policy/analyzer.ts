/**
 * The engine's side of a policy pack, for tests: starts a pack folder the way the Pulumi CLI does
 * (`@pulumi/pulumi/cmd/run-policy-pack <engine> .`, resolved from the pack folder and run in it),
 * reads the port it prints, and makes the analyzer calls the engine makes: GetAnalyzerInfo,
 * Configure (the `--policy-pack-config` file's content), Analyze (one resource's checked inputs,
 * before its step) and AnalyzeStack (every resource's outputs, at the end of the run). Properties
 * go over the wire as the engine sends them: unknowns as the unknown sentinel string.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as analyzerrpc from "@pulumi/pulumi/proto/analyzer_grpc_pb";
import * as analyzerproto from "@pulumi/pulumi/proto/analyzer_pb";
import * as emptyproto from "google-protobuf/google/protobuf/empty_pb";
import * as structproto from "google-protobuf/google/protobuf/struct_pb";

/** A resource as the engine describes it to an analyzer. */
export interface AnalyzedResource {
  type: string;
  urn: string;
  name: string;
  props: Record<string, unknown>;
}

/** One violation, as the engine receives it. */
export interface Diagnostic {
  policyName: string;
  policyPackName: string;
  policyPackVersion: string;
  enforcementLevel: "advisory" | "mandatory" | "disabled" | "remediate";
  message: string;
  urn: string;
}

/** A policy as the pack describes itself (GetAnalyzerInfo). */
export interface PolicyDescription {
  name: string;
  enforcementLevel: Diagnostic["enforcementLevel"];
  policyType: "resource" | "stack" | "unknown";
  configSchema: Record<string, any> | undefined;
  remediationSteps: string;
  url: string;
  description: string;
}

const LEVELS = ["advisory", "mandatory", "disabled", "remediate"] as const;
const toLevel = (l: number) => LEVELS[l] ?? "advisory";
const fromLevel = (l: string) => LEVELS.indexOf(l as (typeof LEVELS)[number]);

/** Config for the pack, as in a `--policy-pack-config` file: policy name -> level or {enforcementLevel?, ...options}. */
export type PackConfig = Record<string, string | ({ enforcementLevel?: string } & Record<string, unknown>)>;

/** Fills an AnalyzeRequest or an AnalyzerResource (same fields) with a resource. */
function describe<M extends analyzerproto.AnalyzeRequest | analyzerproto.AnalyzerResource>(m: M, r: AnalyzedResource): M {
  m.setType(r.type);
  m.setUrn(r.urn);
  m.setName(r.name);
  m.setProperties(structproto.Struct.fromJavaScript(r.props as any));
  // The pack refuses a request without options ("a more recent version of the CLI is required").
  m.setOptions(new analyzerproto.AnalyzerResourceOptions());
  return m;
}

export class PolicyPackProcess {
  private constructor(
    private readonly child: ChildProcess,
    private readonly client: analyzerrpc.AnalyzerClient,
    readonly stderr: () => string,
  ) {}

  /** Starts the pack in `dir` as the CLI does; fails if it prints no port within `timeoutMs`. */
  static async start(dir: string, timeoutMs = 30_000): Promise<PolicyPackProcess> {
    const script = createRequire(path.join(dir, "__pack__.js")).resolve("@pulumi/pulumi/cmd/run-policy-pack");
    const child = spawn(process.execPath, [script, "127.0.0.1:0", "."], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stderr!.on("data", (b) => (stderr += b));
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`policy pack printed no port in ${timeoutMs} ms; stderr:\n${stderr}`)), timeoutMs);
      child.stdout!.on("data", (b) => {
        stdout += b;
        const m = /^(\d+)\s*$/m.exec(stdout);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
      child.on("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`policy pack exited with ${code}; stderr:\n${stderr}`));
      });
    });
    const client = new analyzerrpc.AnalyzerClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    return new PolicyPackProcess(child, client, () => stderr);
  }

  private call<Req, Res>(method: string, req: Req): Promise<Res> {
    return new Promise((resolve, reject) =>
      (this.client as any)[method](req, { deadline: Date.now() + 30_000 }, (err: Error | null, res: Res) =>
        err ? reject(err) : resolve(res),
      ),
    );
  }

  async info(): Promise<{ name: string; version: string; policies: PolicyDescription[] }> {
    const res = await this.call<emptyproto.Empty, analyzerproto.AnalyzerInfo>("getAnalyzerInfo", new emptyproto.Empty());
    return {
      name: res.getName(),
      version: res.getVersion(),
      policies: res.getPoliciesList().map((p) => ({
        name: p.getName(),
        description: p.getDescription(),
        enforcementLevel: toLevel(p.getEnforcementlevel()),
        policyType: (["unknown", "resource", "stack"] as const)[p.getPolicyType()] ?? "unknown",
        configSchema: p.getConfigschema()?.getProperties()?.toJavaScript() as Record<string, any> | undefined,
        remediationSteps: p.getRemediationSteps(),
        url: p.getUrl(),
      })),
    };
  }

  /**
   * The Configure call with a config file's content, reconciled as the engine does
   * (ReconcilePolicyPackConfig): every policy gets its schema's defaults and its own enforcement
   * level, then `all`'s level, then what the file says for it.
   */
  async configure(config: PackConfig): Promise<void> {
    const given = (v: PackConfig[string] | undefined) => (typeof v === "string" ? { enforcementLevel: v } : (v ?? {}));
    const req = new analyzerproto.ConfigureAnalyzerRequest();
    for (const policy of (await this.info()).policies) {
      const defaults = Object.fromEntries(
        Object.entries(policy.configSchema ?? {})
          .filter(([, s]) => "default" in s)
          .map(([k, s]) => [k, s.default]),
      );
      const { enforcementLevel, ...props } = {
        enforcementLevel: given(config.all).enforcementLevel ?? policy.enforcementLevel,
        ...defaults,
        ...given(config[policy.name]),
      };
      const c = new analyzerproto.PolicyConfig();
      c.setEnforcementlevel(fromLevel(enforcementLevel as string));
      c.setProperties(structproto.Struct.fromJavaScript(props as any));
      req.getPolicyconfigMap().set(policy.name, c);
    }
    await this.call("configure", req);
  }

  /** Analyze: one resource's checked inputs, before its step. */
  async analyze(r: AnalyzedResource): Promise<Diagnostic[]> {
    // A resource policy's diagnostic has no URN: the engine reports it on the analyzed resource.
    return diagnostics(await this.call("analyze", describe(new analyzerproto.AnalyzeRequest(), r))).map((d) => ({
      ...d,
      urn: d.urn || r.urn,
    }));
  }

  /** AnalyzeStack: every resource of the stack (their outputs). */
  async analyzeStack(resources: AnalyzedResource[]): Promise<Diagnostic[]> {
    const req = new analyzerproto.AnalyzeStackRequest();
    req.setResourcesList(resources.map((r) => describe(new analyzerproto.AnalyzerResource(), r)));
    return diagnostics(await this.call("analyzeStack", req));
  }

  /** What a preview with the pack reports: Analyze for every resource, then AnalyzeStack. */
  async run(resources: AnalyzedResource[], stackResources: AnalyzedResource[] = resources): Promise<Diagnostic[]> {
    const out: Diagnostic[] = [];
    for (const r of resources) out.push(...(await this.analyze(r)));
    out.push(...(await this.analyzeStack(stackResources)));
    return out;
  }

  close(): void {
    this.client.close();
    this.child.kill();
  }
}

function diagnostics(res: analyzerproto.AnalyzeResponse): Diagnostic[] {
  return res.getDiagnosticsList().map((d) => ({
    policyName: d.getPolicyname(),
    policyPackName: d.getPolicypackname(),
    policyPackVersion: d.getPolicypackversion(),
    enforcementLevel: toLevel(d.getEnforcementlevel()),
    message: d.getMessage(),
    urn: d.getUrn(),
  }));
}
