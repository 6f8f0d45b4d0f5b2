/**
 * Resources as the engine hands them to a policy, for the policy tests: type token, URN, name and
 * properties (with the `__provider` key a dynamic resource always carries).
 */
import type { ResourceInfo } from "../../policy/declarations";

/** The unknown sentinel of a preview (`unknownValue` of @pulumi/pulumi/runtime), whatever the type. */
export const UNKNOWN_WIRE = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export const PROVIDER = "exports.handler = __f0; // serialized provider";

/** A resource of the package: `res("OrgMember", "ada", {...})`. */
export function res(kind: string, name: string, props: Record<string, unknown>): ResourceInfo {
  const type = `pulumi-nodejs:dynamic/reviewadmin:${kind}`;
  return { type, name, urn: `urn:pulumi:test::access::${type}::${name}`, props: { __provider: PROVIDER, ...props } };
}

export const urnOf = (kind: string, name: string) => res(kind, name, {}).urn;

/** The ethical wall of the policy tests: Ken walled off database 2001, and anyone of contoso-counsel.example. */
export const nvcWall = (props: Record<string, unknown> = {}) =>
  res("EthicalWall", "nvc-wall", {
    databaseIds: [2001],
    people: ["ken@northwind.example", "*@contoso-counsel.example"],
    reason: "Ken advised Contoso",
    onBreach: "report",
    walledUsers: { "1010": "ken@northwind.example" },
    ...props,
  });
