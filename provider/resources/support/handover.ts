/**
 * Who in this run declares each person and grant, so that a program edit never removes access
 * the program still declares. A rename, a move into a component, or a person moved from an
 * OrgMember into a roster makes Pulumi create (or update) the new holder and delete the old one
 * in the same run; the delete must then hand over instead of removing.
 *
 * Deletes: the engine checks every resource of the program before it deletes anything the
 * program no longer declares (its post-steps), so the claims made at check, kept here for the
 * plugin process (one run), are complete when a delete asks. A destroy checks nothing: it removes
 * as usual.
 *
 * Authoritative rosters remove people in their own update, while the engine may not have checked
 * the resources registered after them yet (it checks one registration at a time, and a roster's
 * update can run before the next registration arrives). They do not wait for a quiet moment:
 * the program itself tells them what else it declares (declarations.ts: the roster's
 * `declaredElsewhere` input), and they also take the claims of resources checked before them.
 */

import type { ClaimKey } from "../../../contract/grants";

// Claim keys are the grant model's (contract/grants.ts).
export { grantKey, personKeys, type ClaimKey, type ClaimKind } from "../../../contract/grants";

// Symbol.for: one registry per process even if two copies of this package are loaded.
const SLOT = Symbol.for("pulumi-reviewadmin.claims");
function registry(): Map<ClaimKey, string> {
  const g = globalThis as unknown as Record<symbol, Map<ClaimKey, string>>;
  return (g[SLOT] ??= new Map());
}

/** Records that the resource `holder` (its label) declares these keys in this run. */
export function claim(keys: readonly ClaimKey[], holder: string): void {
  for (const key of keys) registry().set(key, holder);
}

/**
 * The label of a resource of this run that declares any of these keys: among `declared` (a
 * roster's `declaredElsewhere`, what the program declares beside it), else among the resources
 * checked so far. A resource replaced with the same keys (`--replace`) finds its own new self
 * here, which is right: the new one holds them.
 */
export function holderOf(keys: readonly ClaimKey[], declared: Readonly<Record<ClaimKey, string>> = {}): string | undefined {
  for (const key of keys) {
    const holder = declared[key] ?? registry().get(key);
    if (holder !== undefined) return holder;
  }
  return undefined;
}
