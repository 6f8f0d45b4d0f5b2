/**
 * What a resource kind's implementation is to the rest of the package: the methods the plugin
 * calls, and the kind and output names its class is built from. Its own module, free of zod,
 * because the implementations are exported (runtime.ts registers them) and published
 * declarations must not import zod; how an implementation is made, schemas included, is
 * lifecycle.ts.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { Run } from "./run";

/**
 * The dynamic-provider methods the faces call with wire values, each in the run (run.ts) the
 * engine call belongs to (the serialized shim forwards to these).
 */
export interface ResourceImpl {
  check(run: Run, olds: unknown, news: unknown): Promise<pulumi.dynamic.CheckResult>;
  diff(run: Run, id: string, olds: unknown, news: unknown): Promise<pulumi.dynamic.DiffResult>;
  create(run: Run, inputs: unknown): Promise<pulumi.dynamic.CreateResult>;
  read(run: Run, id: string, props: unknown): Promise<pulumi.dynamic.ReadResult>;
  update(run: Run, id: string, olds: unknown, news: unknown): Promise<pulumi.dynamic.UpdateResult>;
  delete(run: Run, id: string, props: unknown): Promise<void>;
}

/** What a resource class needs of its kind: the type name and every output name. */
export interface ResourceShape {
  /** The type name: `pulumi-nodejs:dynamic/reviewadmin:<kind>`. */
  readonly kind: string;
  /** Every output name, seeded on the class so Pulumi creates an output property for each. */
  readonly outputs: readonly string[];
  /**
   * Properties whose diff the engine does not print (Pulumi's `hideDiffs` option): a roster's maps,
   * whose every unchanged entry `pulumi preview --diff` would print; the resource says what changes
   * itself, one line per person.
   */
  readonly hideDiffs?: readonly string[];
  /**
   * The people and grants a resource's args (resolved, as the program passes them) declare,
   * as claim keys (handover.ts); undefined when the args are not valid. Kinds without claims leave it out.
   */
  readonly declares?: (args: Record<string, unknown>) => readonly string[] | undefined;
  /**
   * Rosters only: from its args (resolved), the prefix of the claim keys whose holders its
   * removals leave in place (`member:102:`), or undefined when it removes nobody (additive) or
   * the args are not valid; the program passes what else it declares under it (declarations.ts).
   */
  readonly handsOver?: (args: Record<string, unknown>) => string | undefined;
  /** Whether the inputs' schema gives these args (resolved) back unchanged: their check may then skip it (lifecycle.ts RUN_MARKS). */
  readonly inNormalForm?: (args: Record<string, unknown>) => boolean;
}

/** A resource kind's implementation (what `defineResource` makes): its methods, and its shape. */
export interface ResourceImplementation extends ResourceImpl {
  readonly definition: ResourceShape;
}
