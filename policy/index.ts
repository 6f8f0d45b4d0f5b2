/**
 * The policy pack's entry point: `pulumi preview --policy-pack <this folder>` runs it (compiled,
 * from dist/policy/index.js: see package.json's main in this folder). Constructing the PolicyPack
 * starts the analyzer's gRPC server, so nothing else imports this file; tests use policies.ts.
 */
import { PolicyPack } from "@pulumi/policy";
import { PACK_NAME, policies } from "./policies";

new PolicyPack(PACK_NAME, {
  description:
    "Access guardrails for pulumi-reviewadmin stacks: allowed email domains, org admin counts, a DB_ADMIN per database, one ownership level per person, invitation expiry, ethical walls, end dates for external access, stale privileged access.",
  policies,
});
