/**
 * The code the dynamic-provider plugin runs. The provider text every resource stores
 * (resources/support/resourceClass.ts) requires this module by package name and takes the
 * provider of its kind (`shim`). Loaded once per plugin process (one run), so its
 * caches, claims and the client's pacer are shared by every resource of the run.
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
import type { ResourceImpl } from "./resources/support/implementation";
import { userIdentifiers } from "./resources/userIdentifiers";
import { CONFIG_NAMESPACE, setConfiguredSettings, settingsFromConfig } from "./settings";
import { attachToPlugin } from "./pluginHost";
import { deflatedPairs, HandedOn, packProps, unpackProps, type ReadTexts } from "../contract/packed";

// Loaded by Pulumi's dynamic-provider plugin: requests' URNs, the engine's log, quiet errors.
attachToPlugin();

const implementations: Record<string, ResourceImpl> = Object.fromEntries(
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

/**
 * Takes the stack's `reviewadmin:*` config (secrets already decrypted). The plugin calls it once
 * per resource kind, at the kind's first operation, so it must not start anything over: one
 * plugin process serves one run, and the run's caches and claims live as long as the process.
 */
export function configure(req: pulumi.dynamic.ConfigureRequest): void {
  setConfiguredSettings(settingsFromConfig((key) => req.config.get(`${CONFIG_NAMESPACE}:${key}`)));
}

/**
 * The resource kinds this version registers. The policy pack keeps its own list (it may not import
 * the provider: policy/declarations.ts RESOURCE_KINDS), which a test holds to this one.
 */
export function resourceKinds(): string[] {
  return Object.keys(implementations);
}

/** The implementation of one resource kind; throws for a kind this version does not know. */
export function implementationOf(kind: string): ResourceImpl {
  const impl = implementations[kind];
  if (!impl) {
    throw new Error(`pulumi-reviewadmin: this version has no resource kind '${kind}' (state written by a newer version?)`);
  }
  return impl;
}

/**
 * Long texts one step made or read, for the next step of the same resource to take: the engine
 * hands them back (Check's inputs at Diff; Read's state and inputs at the Diff a refresh runs right
 * after), and at 28,007 people reading one again is 0.1 to 0.2 s (docs/engine.md).
 */
const handedOn = new HandedOn(8);

/**
 * The provider of one kind, as Pulumi's dynamic-provider plugin calls it: what the `__provider`
 * text of every resource loads (resourceClass.ts `providerSource`). A roster's large properties
 * cross the engine as JSON text on this face (contract/packed.ts): read back on the way in,
 * packed again on the way out (long output texts deflated), so the implementations see one shape
 * on both faces.
 */
export function shim(kind: string): pulumi.dynamic.ResourceProvider {
  const impl = () => implementationOf(kind);
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
    configure: (req) => Promise.resolve(configure(req)),
    check: async (olds, news) => {
      // Unchanged inputs (the usual case) carry the same texts: each is read once.
      const read = handedOn.reader();
      const old = inn(olds, read);
      const given = inn(news, read);
      const r = await impl().check(old, given);
      // Values that come back as the program gave them (in normal form, or equal to the stored ones:
      // lifecycle.ts checkedBefore) keep the program's texts.
      const kept = { text: news, value: given };
      const inputs = packProps(kind, r.inputs, kept);
      handedOn.add(deflatedPairs(kind, inputs, r.inputs, kept));
      return { ...r, inputs };
    },
    diff: (id, olds, news) => {
      const read = handedOn.reader();
      return impl().diff(id, inn(olds, read), inn(news, read));
    },
    create: async (inputs) => {
      const r = await impl().create(inn(inputs)).catch(packedFailure);
      return { ...r, outs: out(r.outs) };
    },
    read: async (id, props) => {
      const stored = inn(props);
      const r = await impl().read(id, stored);
      // What the read found unchanged keeps its stored text: a refresh with no drift rewrites nothing.
      const kept = { text: props, value: stored };
      const found = r.props ? { props: packProps(kind, r.props, kept) } : {};
      const inputs = r.inputs ? { inputs: packProps(kind, r.inputs) } : {};
      handedOn.add([...deflatedPairs(kind, found.props, r.props, kept), ...deflatedPairs(kind, inputs.inputs, r.inputs)]);
      return { ...r, ...found, ...inputs };
    },
    update: async (id, olds, news) => {
      const r = await impl().update(id, inn(olds), inn(news));
      return { ...r, outs: out(r.outs) };
    },
    delete: (id, props) => impl().delete(id, inn(props)),
  };
}

/**
 * The same as implementationOf, under the name the shims serialized by 0.1.x call: `delete` and
 * `refresh` of a resource run the shim stored in its state (until its next update), so this name
 * must stay, as must implementationOf itself, which the shims serialized since call.
 */
export const provider = implementationOf;
