/**
 * The class side of every resource: the base class that gives each kind its type token
 * `pulumi-nodejs:dynamic/reviewadmin:<kind>`, and the provider shim Pulumi serializes into every
 * resource's state (`__provider`).
 *
 * The shim holds only the resource kind. Each method loads the implementation from the installed
 * package when it runs, so the serialized text is a few hundred bytes, never captures a
 * credential or a cache, and `delete` of an old resource runs today's code (which reads every
 * older state: see SCHEMA_VERSION in lifecycle.ts). The plugin resolves the `require` from the
 * program's folder, where `pulumi-reviewadmin` is installed.
 */
import * as pulumi from "@pulumi/pulumi";
import { warnAboutConfig } from "../../settings";
import { declare, declaredElsewhere } from "./declarations";
import type { ResourceImpl, ResourceShape } from "./implementation";

/** Pulumi module of every type token. */
export const MODULE = "reviewadmin";

/** The typed output properties of a resource whose state is `S`. */
export type Outputs<S> = { readonly [K in keyof S]-?: pulumi.Output<S[K]> };

/** A dynamic provider that delegates every call to `pulumi-reviewadmin/runtime` for one kind. */
export class ProviderShim implements pulumi.dynamic.ResourceProvider {
  constructor(readonly kind: string) {}

  // Synchronous on purpose: the plugin caches the provider before awaiting configure, so a
  // concurrent call must never see half-applied settings.
  configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    loadRuntime().configure(req);
    return Promise.resolve();
  }
  check(olds: unknown, news: unknown) {
    return loadRuntime().implementationOf(this.kind).check(olds, news);
  }
  diff(id: string, olds: unknown, news: unknown) {
    return loadRuntime().implementationOf(this.kind).diff(id, olds, news);
  }
  create(inputs: unknown) {
    return loadRuntime().implementationOf(this.kind).create(inputs);
  }
  read(id: string, props: unknown) {
    return loadRuntime().implementationOf(this.kind).read(id, props);
  }
  update(id: string, olds: unknown, news: unknown) {
    return loadRuntime().implementationOf(this.kind).update(id, olds, news);
  }
  delete(id: string, props: unknown) {
    return loadRuntime().implementationOf(this.kind).delete(id, props);
  }
}

/** What the shim needs of `pulumi-reviewadmin/runtime` (provider/runtime.ts). */
interface Runtime {
  configure(req: pulumi.dynamic.ConfigureRequest): void;
  implementationOf(kind: string): ResourceImpl;
}

function loadRuntime(): Runtime {
  // Resolved at run time in the plugin process; must stay a plain require of the package name.
  return require("pulumi-reviewadmin/runtime");
}

const shims = new Map<string, ProviderShim>();

/** The one shim of a kind: Pulumi serializes each instance once per program. */
export function providerFor(kind: string): ProviderShim {
  let p = shims.get(kind);
  if (!p) shims.set(kind, (p = new ProviderShim(kind)));
  return p;
}

/**
 * A dynamic resource of one kind. Every name in `definition.outputs` is seeded as undefined,
 * because Pulumi only creates an output property for a key present in the props; a fresh props
 * object is built per resource, since the SDK mutates it.
 */
export abstract class ReviewAdminResource extends pulumi.dynamic.Resource {
  /** Version of the state layout this resource was last written with. */
  declare readonly schemaVersion: pulumi.Output<number>;

  constructor(definition: ResourceShape, name: string, args: object, opts?: pulumi.CustomResourceOptions) {
    warnAboutConfig();
    const seeded = Object.fromEntries([...definition.outputs, "schemaVersion"].map((o) => [o, undefined]));
    const self = declare(definition, name, args);
    // A roster learns what the rest of the program declares before it removes anyone (declarations.ts).
    const elsewhere = definition.handsOver ? { declaredElsewhere: declaredElsewhere(self, definition.handsOver) } : {};
    super(providerFor(definition.kind), name, { ...seeded, ...args, ...elsewhere }, opts, MODULE, definition.kind);
  }
}
