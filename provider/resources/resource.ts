/**
 * The base class of every resource: one place for the type token
 * `pulumi-nodejs:dynamic/reviewadmin:<kind>` and the shared serialized provider of the kind.
 */
import * as pulumi from "@pulumi/pulumi";
import { providerFor } from "./serialized";

/** Pulumi module of every type token. */
export const MODULE = "reviewadmin";

/**
 * A dynamic resource of one kind. `outputs` names the computed outputs: Pulumi only creates an
 * output property for a key present in the props, so each is seeded as undefined (and a fresh
 * props object is built per resource, since the SDK mutates it).
 */
export abstract class ReviewAdminResource extends pulumi.dynamic.Resource {
  constructor(kind: string, name: string, args: object, outputs: readonly string[], opts?: pulumi.CustomResourceOptions) {
    const seeded = Object.fromEntries(outputs.map((o) => [o, undefined]));
    super(providerFor(kind), name, { ...seeded, ...args }, opts, MODULE, kind);
  }
}
