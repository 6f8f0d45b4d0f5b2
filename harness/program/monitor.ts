/**
 * The SDK side of a run: the program under `pulumi.runtime.setMocks` in a store of its own, with a
 * MockMonitor that builds engine URNs and hands dynamic resources to a Deployment (the rest go to
 * the ordinary mocks). Why it is built this way: docs/harness.md, "How one program run works".
 */
import { createRequire } from "node:module";
import * as pulumi from "@pulumi/pulumi";
import * as resproto from "@pulumi/pulumi/proto/resource_pb";
import { MockMonitor, type MockCallArgs, type MockResourceArgs, type Mocks } from "@pulumi/pulumi/runtime/mocks";
import { fromStruct, toStruct } from "../wire";
import type { Deployment } from "./deployment";
import type { ProgramFn } from "./programFile";

// Internal SDK modules (no "exports" map in @pulumi/pulumi, so deep requires are allowed).
const sdkRequire = createRequire(__filename);
const sdkState = sdkRequire("@pulumi/pulumi/runtime/state") as {
  withLocalStorage<T>(cb: () => Promise<T>): Promise<T>;
  getStore(): { settings: { monitor: unknown } };
};

/** Type tokens of dynamic resources: `pulumi-nodejs:dynamic:<T>` or `pulumi-nodejs:dynamic/<module>:<T>`. */
export function isDynamicType(type: string): boolean {
  return /^pulumi-nodejs:dynamic[:/]/.test(type);
}

/** Builds the URN the engine would: the parent's qualified type is prefixed, except the root stack's. */
function engineUrn(stack: string, project: string, parent: string | undefined, type: string, name: string): string {
  let qualified = type;
  if (parent) {
    const parentType = parent.split("::")[2];
    if (parentType && parentType !== "pulumi:pulumi:Stack") qualified = `${parentType}$${type}`;
  }
  return `urn:pulumi:${stack}::${project}::${qualified}::${name}`;
}

const defaultMocks: Mocks = {
  newResource: (args: MockResourceArgs) => ({ id: args.custom ? `${args.name}_id` : undefined, state: args.inputs }),
  call: (args: MockCallArgs) => args.inputs,
};

/**
 * The SDK's MockMonitor, with engine URNs and dynamic resources sent to the plugin. (Built on an
 * `any` base: the d.ts declares `newUrn` private.)
 */
const MockMonitorBase: any = MockMonitor;

class HarnessMonitor extends MockMonitorBase {
  constructor(
    mocks: Mocks,
    private readonly deployment: Deployment,
    private readonly project: string,
    private readonly stack: string,
  ) {
    super(mocks);
  }

  newUrn(parent: string | undefined, type: string, name: string): string {
    return engineUrn(this.stack, this.project, parent || undefined, type, name);
  }

  async registerResource(req: any, callback: (err: any, res: any) => void): Promise<void> {
    const type: string = req.getType();
    if (!req.getCustom() || !isDynamicType(type)) return super.registerResource(req, callback);
    try {
      const name: string = req.getName();
      const parent: string = req.getParent();
      const urn = this.newUrn(parent, type, name);
      const result = await this.deployment.register({
        urn,
        type,
        name,
        parent: parent || undefined,
        wire: fromStruct(req.getObject()),
        importId: req.getImportid() || undefined,
        deleteBeforeReplace: req.getDeletebeforereplace(),
        protect: req.getProtect() ?? false,
        retainOnDelete: req.getRetainondelete() ?? false,
        ignoreChanges: req.getIgnorechangesList(),
        replaceOnChanges: req.getReplaceonchangesList(),
        additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
        dependencies: req.getDependenciesList(),
      });
      const res = new resproto.RegisterResourceResponse();
      res.setUrn(urn);
      if (result) {
        res.setId(result.id);
        res.setObject(toStruct(result.outputs));
        this.resources.set(urn, { urn, id: result.id || null, state: result.outputs });
      } else {
        // Failed or skipped: all outputs unknown, never a rejection (see docs/harness.md).
        res.setId("");
        res.setObject(toStruct({}));
        res.setUnknown(true);
      }
      callback(null, res);
    } catch (e) {
      callback(e, undefined);
    }
  }

  async readResource(req: any, callback: (err: any, res: any) => void): Promise<void> {
    const type: string = req.getType();
    if (!isDynamicType(type)) return super.readResource(req, callback);
    try {
      const name: string = req.getName();
      const urn = this.newUrn(req.getParent(), type, name);
      const outs = await this.deployment.read(urn, type, name, req.getId(), fromStruct(req.getProperties()));
      this.resources.set(urn, { urn, id: req.getId(), state: outs ?? {} });
      const res = new resproto.ReadResourceResponse();
      res.setUrn(urn);
      res.setProperties(toStruct(outs ?? {}));
      callback(null, res);
    } catch (e) {
      callback(e, undefined);
    }
  }
}

/** What {@link runUnderMocks} needs besides the program and the deployment. */
export interface MockRunOptions {
  project: string;
  stack: string;
  preview: boolean;
  /** Stack config, keys namespaced. */
  config: Record<string, string>;
  secretConfigKeys: string[];
  /** Mocks for non-dynamic resources and invokes, over the default echo mocks. */
  mocks?: Partial<Mocks>;
}

/**
 * Runs `program` once under mocks, its dynamic resources stepped by `deployment`, and waits for
 * every registration; returns the stack exports. A program error fails the deployment, never
 * rejects.
 */
export async function runUnderMocks(program: ProgramFn, deployment: Deployment, opts: MockRunOptions): Promise<Record<string, any>> {
  const mocks: Mocks = { ...defaultMocks, ...(opts.mocks ?? {}) };
  let outputs: Record<string, any> = {};
  await sdkState.withLocalStorage(async () => {
    await pulumi.runtime.setMocks(mocks, opts.project, opts.stack, opts.preview);
    // Replace the monitor setMocks installed (in this run's store) with ours.
    sdkState.getStore().settings.monitor = new HarnessMonitor(mocks, deployment, opts.project, opts.stack);
    pulumi.runtime.setAllConfig(opts.config, opts.secretConfigKeys);
    // A program error is caught inside the stack's init: thrown out of it, the SDK rejects
    // promises nobody awaits (unhandled rejections). The engine fails the run the same way.
    const init = async () => {
      try {
        return (await program()) ?? undefined;
      } catch (e) {
        deployment.fail(e);
        return undefined;
      }
    };
    try {
      outputs = ((await pulumi.runtime.runInPulumiStack(init)) as Record<string, any>) ?? {};
    } catch (e) {
      deployment.fail(e);
    }
    // Waits for every pending registration (and thus every plugin call made for it).
    await pulumi.runtime.disconnect();
    if (pulumi.log.hasErrors()) deployment.fail(new Error("the program logged errors (pulumi.log.error)"));
  });
  return outputs;
}
