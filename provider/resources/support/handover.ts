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
export { grantKey, memberClaims, personKeys, type ClaimKey, type ClaimKind } from "../../../contract/grants";

/** The claims of a run: keys by holder, and the claims not yet turned into keys. */
interface Registry {
  byKey: Map<ClaimKey, string>;
  waiting: { keys: () => readonly ClaimKey[]; holder: string }[];
}

// Symbol.for: one registry per process even if two copies of this package are loaded.
const SLOT = Symbol.for("pulumi-reviewadmin.claims.lazy");
function registry(): Registry {
  const g = globalThis as unknown as Record<symbol, Registry>;
  return (g[SLOT] ??= { byKey: new Map(), waiting: [] });
}

/**
 * Records that the resource `holder` (its label) declares the keys `keys()` gives in this run.
 * The keys are made only when a holder is asked for (a delete, a roster's removal or drift
 * gate): a run that removes nobody never makes them (28,007 people: 250 ms of a roster's check).
 */
export function claim(keys: () => readonly ClaimKey[], holder: string): void {
  registry().waiting.push({ keys, holder });
}

/** The run's claims by key, the later claim of a key winning. */
function claimsByKey(): Map<ClaimKey, string> {
  const r = registry();
  for (const c of r.waiting.splice(0)) for (const key of c.keys()) r.byKey.set(key, c.holder);
  return r.byKey;
}

/**
 * The label of a resource of this run that declares any of these keys: among `declared` (a
 * roster's `declaredElsewhere`, what the program declares beside it), else among the resources
 * checked so far. A resource replaced with the same keys (`--replace`) finds its own new self
 * here, which is right: the new one holds them.
 */
export function holderOf(keys: readonly ClaimKey[], declared: Readonly<Record<ClaimKey, string>> = {}): string | undefined {
  const inRun = claimsByKey();
  for (const key of keys) {
    const holder = declared[key] ?? inRun.get(key);
    if (holder !== undefined) return holder;
  }
  return undefined;
}
