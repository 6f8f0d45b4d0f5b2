/**
 * What a stack's code declares, for the review packet's flags that live in the program, not in
 * the service: not-in-code, expiring-soon, walled and wall-breach. Read from the stack's state
 * (`pulumi stack export`, the same JSON `--stack-state` takes) and made plain by the policy pack's
 * model (policy/declarations.ts), which reads resource outputs the same way for the pack.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
// The rpc module alone, not the runtime index: see policy/declarations.ts.
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { declaredBy, kindOf, NOT_KNOWN, type Declared, type ResourceInfo } from "../../policy/declarations";
import { UsageError } from "../command";

/** A stack's declarations, and where they came from (said in the packet). */
export interface StackDeclarations {
  /** "stack dev", "state file state.json", or "standard input". */
  source: string;
  /** The package's resources read. */
  resources: number;
  declared: Declared;
  /** The resources themselves, with their outputs (the wall report reads each wall's removals). */
  infos: ResourceInfo[];
}

/** A state's value with secrets opened where `--show-secrets` left them in plain text, else not known. */
function plain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (!v || typeof v !== "object") return v;
  const o = v as Record<string, unknown>;
  if (o[specialSigKey] === specialSecretSig) return typeof o.plaintext === "string" ? plain(JSON.parse(o.plaintext)) : NOT_KNOWN;
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, plain(x)]));
}

/** A resource of an exported deployment: its outputs as `props`, and the inputs the program gave. */
export interface ExportedResource extends ResourceInfo {
  inputs: Record<string, unknown>;
}

/** The package's live resources of an exported deployment (`{version, deployment: {resources}}`). */
export function resourcesOfExport(json: unknown, what: string): ExportedResource[] {
  const resources = (json as { deployment?: { resources?: unknown } } | null)?.deployment?.resources;
  if (!Array.isArray(resources))
    throw new UsageError(`${what} is not the output of \`pulumi stack export\`: it has no deployment.resources list`);
  const out: ExportedResource[] = [];
  for (const r of resources as Record<string, unknown>[]) {
    if (typeof r.type !== "string" || typeof r.urn !== "string" || r.delete === true || !kindOf(r.type)) continue;
    out.push({
      type: r.type,
      urn: r.urn,
      name: r.urn.slice(r.urn.lastIndexOf("::") + 2),
      props: plain(r.outputs ?? {}) as Record<string, unknown>,
      inputs: plain(r.inputs ?? {}) as Record<string, unknown>,
    });
  }
  return out;
}

/** The output of `pulumi stack export` a command was given, and where it came from. */
export interface StackExport {
  /** "stack dev", "state file state.json", or "standard input". */
  source: string;
  json: unknown;
}

/**
 * The output of `pulumi stack export` for the stack named by `--stack` (run here, in the current
 * folder, with the CLI's own login and environment) or given by `--stack-state` (a file of that
 * command's output, or `-` for standard input); undefined when neither is given.
 */
export function readStackExport(opts: { stack?: string; stackState?: string }): StackExport | undefined {
  if (opts.stack !== undefined && opts.stackState !== undefined) throw new UsageError("give --stack or --stack-state, not both");
  let text: string;
  let source: string;
  if (opts.stackState !== undefined) {
    const stdin = opts.stackState === "-";
    source = stdin ? "standard input" : `state file ${opts.stackState}`;
    try {
      text = fs.readFileSync(stdin ? 0 : opts.stackState, "utf8");
    } catch (err) {
      throw new UsageError(`--stack-state: cannot read ${stdin ? "standard input" : opts.stackState}: ${(err as Error).message}`);
    }
  } else if (opts.stack !== undefined) {
    source = `stack ${opts.stack}`;
    const r = spawnSync("pulumi", ["stack", "export", "--stack", opts.stack, "--non-interactive"], {
      encoding: "utf8",
      maxBuffer: 1 << 30,
    });
    if (r.error)
      throw new UsageError(
        `--stack needs the Pulumi CLI on PATH to run \`pulumi stack export\` (${r.error.message}); or give --stack-state with that command's output`,
      );
    if (r.status !== 0)
      throw new UsageError(`--stack: \`pulumi stack export --stack ${opts.stack}\` failed: ${r.stderr.trim() || `exit ${r.status}`}`);
    text = r.stdout;
  } else return undefined;
  try {
    return { source, json: JSON.parse(text) as unknown };
  } catch {
    throw new UsageError(`${source} is not JSON: give the output of \`pulumi stack export\``);
  }
}

/** The declarations of the stack given by `--stack` or `--stack-state` ({@link readStackExport}); undefined when neither is given. */
export function readStack(opts: { stack?: string; stackState?: string }): StackDeclarations | undefined {
  const exported = readStackExport(opts);
  if (!exported) return undefined;
  const resources = resourcesOfExport(exported.json, exported.source);
  return { source: exported.source, resources: resources.length, declared: declaredBy(resources), infos: resources };
}
