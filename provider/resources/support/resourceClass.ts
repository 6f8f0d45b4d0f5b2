/**
 * The class side of every resource: the base class that gives each kind its type token
 * `pulumi-nodejs:dynamic/reviewadmin:<kind>`, and the provider text Pulumi stores in every
 * resource's state (`__provider`).
 *
 * The text holds only the resource kind and loads the implementation from the installed package
 * when the plugin runs, so it never captures a credential or a cache, and `delete` of an old
 * resource runs today's code (which reads every older state: see SCHEMA_VERSION in lifecycle.ts).
 */
import type * as pulumi from "@pulumi/pulumi";
import { Output, output } from "@pulumi/pulumi/output";
import { createUrn, CustomResource } from "@pulumi/pulumi/resource";
import { isDryRun } from "@pulumi/pulumi/runtime/settings";
import { isPacked, PACKED_PROPERTIES, packAs, unpackValue } from "../../../contract/packed";
import { warnAboutConfig } from "../../settings";
import { declare, declaredElsewhere, holdsPending, isPending } from "./declarations";
import type { ResourceShape } from "./implementation";
import { APPLIED_AT, RUN_MARKS } from "./lifecycle";

/** Marks an output's promises as handled (the failure they carry is reported elsewhere). */
function handled(value: unknown): void {
  if (!Output.isInstance(value)) return;
  // promise() is the SDK's own (internal) accessor of an output's value.
  const out = value as unknown as { promise(): Promise<unknown>; isKnown?: Promise<boolean>; isSecret?: Promise<boolean> };
  const ignore = () => undefined;
  void out.promise().catch(ignore);
  void out.isKnown?.catch(ignore);
  void out.isSecret?.catch(ignore);
}

/**
 * The URN a resource will have. Under a parent, from the parent's URN as a plain value: an input
 * that depends on a component depends on all of its children, this resource included, and would
 * never resolve.
 */
function urnOf(name: string, type: string, parent: pulumi.Resource | undefined): pulumi.Input<string> {
  if (!parent) return createUrn(name, type);
  // promise() is the SDK's own (internal) accessor of an output's value; it carries no dependency.
  const valueOf = (o: pulumi.Output<string>) => (o as unknown as { promise(): Promise<string> }).promise();
  return valueOf(parent.urn).then((urn) => valueOf(createUrn(name, type, urn)));
}

/**
 * Turns off stack capture while the SDK registers a resource; returns the limit to restore.
 *
 * Why: the SDK (runtime/debuggable.ts) stores `new Error().stack` on every promise it makes, four
 * per output property, and formats each through source-map-support; that text is read only when
 * PULUMI_DEBUG_PROMISE_LEAKS is set. Profiled at 28,007 people (203 resources of about 25
 * properties), it was a quarter of the program's CPU in a no-change `up` (docs/engine.md). The
 * SDK's source position of the resource is unaffected: it lifts the limit itself to read it.
 */
function quietStacks(): number {
  const limit = Error.stackTraceLimit;
  if (!process.env.PULUMI_DEBUG_PROMISE_LEAKS) Error.stackTraceLimit = 0;
  return limit;
}

/** Pulumi module of every type token. */
export const MODULE = "reviewadmin";

/** The typed output properties of a resource whose state is `S`. */
export type Outputs<S> = { readonly [K in keyof S]-?: pulumi.Output<S[K]> };

/**
 * The `__provider` text of a kind: the module Pulumi's dynamic-provider plugin loads to get the
 * provider (`handler()`), written by hand instead of serialized from an object. It loads the
 * kind's provider from the installed package when the plugin runs (runtime.ts `shim`), so it holds
 * nothing but the kind: no credential, no cache, and about 100 bytes where a serialized provider
 * took 4.6 KB, stored twice (inputs and outputs) in every resource's state.
 */
export function providerSource(kind: string): string {
  // The plugin resolves the require from the program's folder, where pulumi-reviewadmin is installed.
  return `exports.handler = () => require("pulumi-reviewadmin/runtime").shim(${JSON.stringify(kind)});\n`;
}

/**
 * A dynamic resource of one kind: what `pulumi.dynamic.Resource` makes (the type token
 * `pulumi-nodejs:dynamic/reviewadmin:<kind>`, the provider in `__provider`), with the provider
 * text from providerSource. Every name in `definition.outputs` is seeded as undefined, because
 * Pulumi only creates an output property for a key present in the props.
 */
export abstract class ReviewAdminResource extends CustomResource {
  /** Version of the state layout this resource was last written with. */
  declare readonly schemaVersion: pulumi.Output<number>;
  /**
   * When this program last created or updated the resource (ISO, the service's clock, whole
   * seconds); refresh keeps it. Refresh names who changed a drifted resource from the activity
   * log after it. Absent in states written before it existed.
   */
  declare readonly appliedAt: pulumi.Output<string | undefined>;

  constructor(definition: ResourceShape, name: string, args: object, opts?: pulumi.CustomResourceOptions) {
    const type = `pulumi-nodejs:dynamic/${MODULE}:${definition.kind}`;
    // Walked once: at 28,007 people each walk of the args is 30 to 50 ms.
    const plain = !holdsPending(args);
    // What the plugin cannot know by itself: whether this run is a preview, and which resource a
    // request is about (lifecycle.ts RUN_MARKS; check takes them out).
    const marks = {
      ...(isDryRun() ? { [RUN_MARKS.preview]: true } : {}),
      [RUN_MARKS.urn]: urnOf(name, type, opts?.parent),
      // Args known now and already in normal form need no second parse at check (the parse here is memoized).
      ...(plain && definition.inNormalForm?.(args as Record<string, unknown>) ? { [RUN_MARKS.normal]: true } : {}),
    };
    const props = {
      ...packedInputs(definition.kind, programProps(definition, name, args, plain), plain),
      ...marks,
      __provider: providerSource(definition.kind),
    };
    const hideDiffs = definition.hideDiffs?.length ? { hideDiffs: [...(opts?.hideDiffs ?? []), ...definition.hideDiffs] } : {};
    const limit = quietStacks();
    try {
      super(type, name, props, { ...opts, ...hideDiffs });
    } finally {
      Error.stackTraceLimit = limit;
    }
    // A failed step is reported once, by the engine, on this resource; its outputs reject too, and a
    // rejection nothing handles would make the program print the same failure again, with a stack.
    for (const value of Object.values(this)) handled(value);
    // The program reads the packed outputs as the values they hold, whichever state wrote them,
    // unpacked when first read: most programs never read a roster's 28,007 entries, and the SDK
    // walks every value an output resolves to, twice (0.3 to 0.5 s at the end of every run).
    const self = this as unknown as Record<string, unknown>;
    for (const field of PACKED_PROPERTIES[definition.kind] ?? []) {
      const packed = self[field];
      if (!Output.isInstance(packed)) continue;
      let unpacked: pulumi.Output<unknown> | undefined;
      Object.defineProperty(self, field, {
        enumerable: true,
        configurable: true,
        get: () => {
          if (!unpacked) {
            unpacked = packed.apply((v) => (isPacked(v) ? unpackValue(v) : v));
            handled(unpacked);
          }
          return unpacked;
        },
      });
    }
  }
}

/**
 * A roster's packed inputs by contract/packed.ts's one rule (small: the value; long: deflated JSON
 * text): at once when the value holds no output or promise, else when it resolves (an unknown
 * anywhere in it leaves the whole unknown in a preview, which the roster reads as "not known
 * yet", as it reads an unknown entry). In the program's own key order, not the canonical one: the
 * same program writes the same text at every run, the plugin compares values, and at 28,007
 * people canonical JSON took 150 to 210 ms of the program's start against 50 ms.
 */
function packedInputs(kind: string, props: Record<string, unknown>, plain: boolean): Record<string, unknown> {
  const out = { ...props };
  for (const field of PACKED_PROPERTIES[kind] ?? []) {
    const v = out[field];
    if (v === undefined || v === null) continue;
    // Plain args hold nothing pending at any depth; what programProps adds (declaredElsewhere) is a promise itself.
    const pending = plain ? isPending(v) : holdsPending(v);
    out[field] = pending
      ? output(v).apply((known) => (known === undefined || known === null ? known : packAs(known, JSON.stringify(known))))
      : packAs(v as object, JSON.stringify(v));
  }
  return out;
}

/**
 * What a resource of either face registers besides its type: every output seeded (Pulumi creates
 * an output property only for a key present in the props), the args, and for a roster what the
 * rest of the program declares (declarations.ts). `plain`: the args hold no output or promise. Warns once about misspelt config keys.
 */
function programProps(definition: ResourceShape, name: string, args: object, plain: boolean): Record<string, unknown> {
  warnAboutConfig();
  const seeded = Object.fromEntries([...definition.outputs, "schemaVersion", APPLIED_AT].map((o) => [o, undefined]));
  const self = declare(definition, name, args, plain);
  // A roster learns what the rest of the program declares before it removes anyone (declarations.ts).
  const elsewhere = definition.handsOver ? { declaredElsewhere: declaredElsewhere(self, definition, args, plain) } : {};
  return { ...seeded, ...args, ...elsewhere };
}

/**
 * A resource of one kind on the plugin face (`reviewadmin:index:<kind>`, served by the
 * `pulumi-resource-reviewadmin` plugin, provider/plugin/): the same args and outputs as the
 * dynamic class, and explicit providers (`opts.provider`), detailed diffs and import with it.
 */
export abstract class PluginFaceResource extends CustomResource {
  declare readonly schemaVersion: pulumi.Output<number>;
  declare readonly appliedAt: pulumi.Output<string | undefined>;

  constructor(definition: ResourceShape, name: string, args: object, opts?: pulumi.CustomResourceOptions) {
    const props = programProps(definition, name, args, !holdsPending(args));
    const limit = quietStacks();
    try {
      super(`${MODULE}:index:${definition.kind}`, name, props, opts);
    } finally {
      Error.stackTraceLimit = limit;
    }
    for (const value of Object.values(this)) handled(value);
  }
}
