/**
 * Who in this run declares each person and grant, so that a program edit never removes access
 * the program still declares. A rename, a move into a component, or a person moved from an
 * OrgMember into a roster makes Pulumi create (or update) the new holder and delete the old one
 * in the same run; the delete must then hand over instead of removing.
 *
 * Deletes: the engine checks every resource of the program before it deletes anything the
 * program no longer declares (its post-steps), so the claims made at check, kept here for the
 * run (run.ts), are complete when a delete asks. A destroy checks nothing: it removes
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

/**
 * The claims of one run (run.ts), kept from its checks for its deletes and rosters: keys by
 * holder, and the claims not yet turned into keys.
 */
export class Claims {
  readonly #byKey = new Map<ClaimKey, string>();
  #waiting: { keys: () => readonly ClaimKey[]; holder: string }[] = [];

  /**
   * Records that the resource `holder` (its label) declares the keys `keys()` gives in this run.
   * The keys are made only when a holder is asked for (a delete, a roster's removal or drift
   * gate): a run that removes nobody never makes them (28,007 people: 250 ms of a roster's check).
   */
  claim(keys: () => readonly ClaimKey[], holder: string): void {
    this.#waiting.push({ keys, holder });
  }

  /**
   * The label of a resource of this run that declares any of these keys: among `declared` (a
   * roster's `declaredElsewhere`, what the program declares beside it), else among the resources
   * checked so far. A resource replaced with the same keys (`--replace`) finds its own new self
   * here, which is right: the new one holds them.
   */
  holderOf(keys: readonly ClaimKey[], declared: Readonly<Record<ClaimKey, string>> = {}): string | undefined {
    const inRun = this.#claimsByKey();
    for (const key of keys) {
      const holder = declared[key] ?? inRun.get(key);
      if (holder !== undefined) return holder;
    }
    return undefined;
  }

  /** The run's claims by key, the later claim of a key winning. */
  #claimsByKey(): Map<ClaimKey, string> {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const c of waiting) for (const key of c.keys()) this.#byKey.set(key, c.holder);
    return this.#byKey;
  }
}
