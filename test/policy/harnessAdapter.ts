/**
 * The one place the policy tests use the program harness (and the emulator): runs a program as
 * `pulumi preview` or `pulumi up` against a fresh seeded emulator, and returns its resources the
 * way the engine hands them to a policy pack.
 *
 * - preview (a new stack): every resource is a create, and the engine hands both Analyze and
 *   AnalyzeStack its checked inputs as planned, unknowns included. The harness answers each
 *   registration with exactly that (the plugin's Check result, unknowns as the sentinel string,
 *   secrets wrapped), and its monitor (the SDK's MockMonitor) keeps what it answered: read with
 *   `getRegisteredResources()` on the monitor of the run, taken inside the program.
 * - up: Analyze gets each resource's checked inputs, AnalyzeStack the outputs: the stack state.
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { isDynamicType } from "../../harness/program/monitor";
import { programFromPath } from "../../harness/program/programFile";
import { ProgramStack, type RunResult } from "../../harness/program/stack";
import type { AnalyzedResource } from "./analyzer";

export interface ProgramRun {
  result: RunResult;
  /** What Analyze gets, one per resource, in registration order. */
  inputs: AnalyzedResource[];
  /** What AnalyzeStack gets. */
  stack: AnalyzedResource[];
}

/** `urn:pulumi:stack::project::[parent$]type::name` -> type and name. */
function parseUrn(urn: string): { type: string; name: string } {
  const parts = urn.split("::");
  return { type: parts[2]!.split("$").at(-1)!, name: parts.slice(3).join("::") };
}

/** Provider config for a seeded emulator (keys namespaced, as `pulumi config set` writes them). */
function providerConfig(emu: RunningEmulator): Record<string, string> {
  return { "reviewadmin:baseUrl": emu.url, "reviewadmin:apiKey": emu.keys.orgAdmin, "reviewadmin:requestsPerSecond": "1000" };
}

/** A fresh seeded emulator for a run of the real CLI: its provider config, and close(). */
export async function policyEmulator(): Promise<{ config: Record<string, string>; close(): Promise<void> }> {
  const emu = await startEmulator({ rateLimit: 0 });
  return { config: providerConfig(emu), close: () => emu.close() };
}

export class PolicyProgramStack {
  private constructor(
    private readonly emu: RunningEmulator,
    private readonly stack: ProgramStack,
    private readonly program: string,
  ) {}

  /**
   * A stack of the program at `programDir` (its index.ts, run in that folder as the CLI would),
   * configured for a fresh seeded emulator; `config` adds the program's own keys.
   */
  static async create(programDir: string, project: string, config: Record<string, string> = {}): Promise<PolicyProgramStack> {
    const emu = await startEmulator({ rateLimit: 0 });
    const stack = new ProgramStack({
      cwd: programDir,
      project,
      stack: "policy",
      config: { ...providerConfig(emu), ...config },
      secretConfigKeys: ["reviewadmin:apiKey"],
    });
    return new PolicyProgramStack(emu, stack, path.join(programDir, "index.ts"));
  }

  /** `pulumi preview` of the program (on the stack's current state: new resources are creates). */
  async preview(): Promise<ProgramRun> {
    const inner = programFromPath(this.program);
    let monitor: { getRegisteredResources(): Map<string, { urn: string; state: Record<string, unknown> }> } | undefined;
    const result = await this.stack.preview(async () => {
      monitor = pulumi.runtime.getMonitor() as any;
      return inner();
    });
    const resources = [...(monitor?.getRegisteredResources().values() ?? [])]
      .map((r) => ({ urn: r.urn, ...parseUrn(r.urn), props: r.state }))
      .filter((r) => isDynamicType(r.type));
    return { result, inputs: resources, stack: resources };
  }

  /** `pulumi up` of the program. */
  async up(): Promise<ProgramRun> {
    const result = await this.stack.up(this.program);
    const entries = [...this.stack.state.values()];
    return {
      result,
      inputs: entries.map((s) => ({ type: s.type, urn: s.urn, name: s.name, props: s.inputs })),
      stack: entries.map((s) => ({ type: s.type, urn: s.urn, name: s.name, props: s.outputs })),
    };
  }

  async close(): Promise<void> {
    await this.stack.close();
    // Data sources run in this process: close their HTTP clients before the emulator.
    const dist = createRequire(__filename)("../../dist/provider/index.js") as typeof import("../../provider");
    await dist.getClient({ baseUrl: this.emu.url, apiKey: this.emu.keys.orgAdmin }).close();
    await this.emu.close();
  }
}
