/**
 * The code the dynamic-provider plugin runs. The provider text every resource stores
 * (resources/support/resourceClass.ts) requires this module by package name and takes the
 * provider of its kind (`shim`). The dynamic face (`dynamicFace`) serves one run (run.ts): the
 * plugin process, which the engine starts for each run, loads this module once and serves that
 * run (`processRun`); a test serves each simulated run through a face of its own.
 */
// First: on an old Node, one line saying which Node is needed, before undici loads.
import "../contract/requireNode";
import type * as pulumi from "@pulumi/pulumi";
import { custodianDirectorySync } from "./resources/custodianDirectorySync";
import { databaseUserPermissions } from "./resources/databaseUserPermissions";
import { databaseUsers } from "./resources/databaseUsers";
import { dataset } from "./resources/dataset";
import { ethicalWall } from "./resources/ethicalWall";
import { invitation } from "./resources/invitation";
import { orgMember } from "./resources/orgMember";
import { orgMemberPermissions } from "./resources/orgMemberPermissions";
import { organizationMembers } from "./resources/organizationMembers";
import { sourceFile } from "./resources/sourceFile";
import type { ResourceImpl, ResourceImplementation } from "./resources/support/implementation";
import { userIdentifiers } from "./resources/userIdentifiers";
import { Run } from "./resources/support/run";
import { engineSink } from "./resources/support/messages";
import { CONFIG_NAMESPACE, settingsFromConfig } from "./settings";
import { attachToPlugin, hookRequestIds } from "./pluginHost";
import { deflatedPairs, HandedOn, packProps, unpackProps, type ReadTexts } from "../contract/packed";

// Loaded by Pulumi's dynamic-provider plugin: requests' URNs, the engine's log, quiet errors.
attachToPlugin();

const implementations: Record<string, ResourceImplementation> = Object.fromEntries(
  [
    orgMember,
    orgMemberPermissions,
    userIdentifiers,
    databaseUserPermissions,
    invitation,
    custodianDirectorySync,
    organizationMembers,
    databaseUsers,
    dataset,
    sourceFile,
    ethicalWall,
  ].map((impl) => [impl.definition.kind, impl]),
);

/** The `reviewadmin:*` settings of the stack config Configure gives (secrets already decrypted); throws SettingsError for a bad value. */
function settingsOfConfigure(req: pulumi.dynamic.ConfigureRequest) {
  return settingsFromConfig((key) => req.config.get(`${CONFIG_NAMESPACE}:${key}`));
}

/**
 * The resource kinds this version registers. The policy pack keeps its own list (it may not import
 * the provider: policy/declarations.ts RESOURCE_KINDS), which a test holds to this one.
 */
export function resourceKinds(): string[] {
  return Object.keys(implementations);
}

/** The implementation of one resource kind, whose methods take the run; throws for a kind this version does not know. */
export function kindImplementation(kind: string): ResourceImplementation {
  const impl = implementations[kind];
  if (!impl) {
    throw new Error(`pulumi-reviewadmin: this version has no resource kind '${kind}' (state written by a newer version?)`);
  }
  return impl;
}

/** A kind's provider as Pulumi's dynamic-provider plugin calls it, in one run. */
export type KindProvider = (kind: string) => pulumi.dynamic.ResourceProvider;

/**
 * The dynamic face of one run: the provider of each kind, as Pulumi's dynamic-provider plugin
 * calls it. A roster's large properties cross the engine as JSON text on this face
 * (contract/packed.ts): read back on the way in, packed again on the way out (long output texts
 * deflated), so the implementations see one shape on both faces.
 */
export function dynamicFace(run: Run): KindProvider {
  /**
   * Long texts one step made or read, for the next step of the same resource to take: the engine
   * hands them back (Check's inputs at Diff; Read's state and inputs at the Diff a refresh runs right
   * after), and at 28,007 people reading one again is 0.1 to 0.2 s (docs/engine.md).
   */
  const handedOn = new HandedOn(8);
  return (kind) => {
    const impl = () => kindImplementation(kind);
    const inn = <T>(props: T, read?: ReadTexts): T => unpackProps(kind, props, read ?? handedOn.reader());
    const out = <T>(props: T): T => packProps(kind, props);
    const packedFailure = (err: unknown): never => {
      // A partial create carries the half-created resource's properties (lifecycle.ts IncompleteCreate).
      const e = err as { properties?: unknown };
      if (e && typeof e === "object" && e.properties) e.properties = out(e.properties);
      throw err;
    };
    return {
      // Synchronous underneath: the plugin caches the provider before awaiting configure, so a
      // concurrent call must never see half-applied settings.
      configure: (req) => Promise.resolve(run.configure(settingsOfConfigure(req))),
      check: async (olds, news) => {
        // Unchanged inputs (the usual case) carry the same texts: each is read once.
        const read = handedOn.reader();
        const old = inn(olds, read);
        const given = inn(news, read);
        const r = await impl().check(run, old, given);
        // Values that come back as the program gave them (in normal form, or equal to the stored ones:
        // lifecycle.ts checkedBefore) keep the program's texts.
        const kept = { text: news, value: given };
        const inputs = packProps(kind, r.inputs, kept);
        handedOn.add(deflatedPairs(kind, inputs, r.inputs, kept));
        return { ...r, inputs };
      },
      diff: (id, olds, news) => {
        const read = handedOn.reader();
        return impl().diff(run, id, inn(olds, read), inn(news, read));
      },
      create: async (inputs) => {
        const r = await impl().create(run, inn(inputs)).catch(packedFailure);
        return { ...r, outs: out(r.outs) };
      },
      read: async (id, props) => {
        const stored = inn(props);
        const r = await impl().read(run, id, stored);
        // What the read found unchanged keeps its stored text: a refresh with no drift rewrites nothing.
        const kept = { text: props, value: stored };
        const found = r.props ? { props: packProps(kind, r.props, kept) } : {};
        const inputs = r.inputs ? { inputs: packProps(kind, r.inputs) } : {};
        handedOn.add([...deflatedPairs(kind, found.props, r.props, kept), ...deflatedPairs(kind, inputs.inputs, r.inputs)]);
        return { ...r, ...found, ...inputs };
      },
      update: async (id, olds, news) => {
        const r = await impl().update(run, id, inn(olds), inn(news));
        return { ...r, outs: out(r.outs) };
      },
      delete: (id, props) => impl().delete(run, id, inn(props)),
    };
  };
}

/**
 * This process's run and its dynamic face. Justified process state: Pulumi's dynamic-provider
 * plugin gives a provider no handle of the run it serves and serves exactly one run per process,
 * so the process's run is that run. Made when the plugin first asks for a provider.
 */
// eslint-disable-next-line no-restricted-syntax -- process-wide: the dynamic plugin serves one run per process (see above).
let served: { run: Run; face: KindProvider } | undefined;

function processRun(): { run: Run; face: KindProvider } {
  if (!served) {
    const run = new Run({ messages: engineSink() });
    // The plugin's requests name their URNs by id from now on, to this run.
    if (hookRequestIds((id, urn) => run.nameUrnOfId(id, urn))) run.learnUrnsById();
    served = { run, face: dynamicFace(run) };
  }
  return served;
}

/**
 * The provider of one kind in this process's run: what the `__provider` text of every resource
 * loads (resourceClass.ts `providerSource`).
 */
export function shim(kind: string): pulumi.dynamic.ResourceProvider {
  return processRun().face(kind);
}

/**
 * Takes the stack's `reviewadmin:*` config for this process's run: what the serialized providers
 * of states written before 0.2.0 call (test/engine/olderStates.test.ts), so its name stays.
 */
export function configure(req: pulumi.dynamic.ConfigureRequest): void {
  processRun().run.configure(settingsOfConfigure(req));
}

/**
 * One kind's methods in this process's run, with the signatures the serialized providers of
 * states written before 0.2.0 call (`implementationOf(kind).check(olds, news)`): `delete` and
 * `refresh` of such a resource run the provider stored in its state (until its next update), so
 * this name must stay, as must `provider` below.
 */
export function implementationOf(kind: string): OlderShimImpl {
  const impl = kindImplementation(kind);
  const { run } = processRun();
  return {
    definition: impl.definition,
    check: (olds, news) => impl.check(run, olds, news),
    diff: (id, olds, news) => impl.diff(run, id, olds, news),
    create: (inputs) => impl.create(run, inputs),
    read: (id, props) => impl.read(run, id, props),
    update: (id, olds, news) => impl.update(run, id, olds, news),
    delete: (id, props) => impl.delete(run, id, props),
  };
}

/** A kind's methods as the serialized providers of states written before 0.2.0 call them: in the process's run. */
export type OlderShimImpl = {
  readonly definition: ResourceImplementation["definition"];
} & {
  [M in keyof ResourceImpl]: ResourceImpl[M] extends (run: Run, ...rest: infer A) => infer R ? (...args: A) => R : never;
};

/** The same as implementationOf, under the name the shims serialized by 0.1.x call. */
export const provider = implementationOf;
