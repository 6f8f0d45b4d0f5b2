/**
 * The provider object Pulumi serializes into every resource's state (`__provider`).
 *
 * It holds only the resource kind. Each method loads the implementation from the installed
 * package when it runs, so the serialized text is a few hundred bytes, never captures a
 * credential or a cache, and `delete` of an old resource runs today's code (which must read
 * every older state: see SCHEMA_VERSION in base.ts). The plugin resolves the `require` from the
 * program's folder, where `pulumi-reviewadmin` is installed.
 */
import type * as pulumi from "@pulumi/pulumi";

/** A dynamic provider that delegates every call to `pulumi-reviewadmin/runtime` for one kind. */
export class ReviewAdminProvider implements pulumi.dynamic.ResourceProvider {
  constructor(readonly kind: string) {}

  // Synchronous on purpose: the plugin caches the provider before awaiting configure, so a
  // concurrent call must never see half-applied settings.
  configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    loadRuntime().configure(req);
    return Promise.resolve();
  }
  check(olds: any, news: any) {
    return loadRuntime().provider(this.kind).check(olds, news);
  }
  diff(id: string, olds: any, news: any) {
    return loadRuntime().provider(this.kind).diff(id, olds, news);
  }
  create(inputs: any) {
    return loadRuntime().provider(this.kind).create(inputs);
  }
  read(id: string, props: any) {
    return loadRuntime().provider(this.kind).read(id, props);
  }
  update(id: string, olds: any, news: any) {
    return loadRuntime().provider(this.kind).update(id, olds, news);
  }
  delete(id: string, props: any) {
    return loadRuntime().provider(this.kind).delete(id, props);
  }
}

function loadRuntime(): typeof import("../runtime") {
  // Resolved at run time in the plugin process; must stay a plain require of the package name.
  return require("pulumi-reviewadmin/runtime");
}

const shared = new Map<string, ReviewAdminProvider>();

/** The one provider instance for a kind: Pulumi serializes each instance once per program. */
export function providerFor(kind: string): ReviewAdminProvider {
  let p = shared.get(kind);
  if (!p) shared.set(kind, (p = new ReviewAdminProvider(kind)));
  return p;
}
