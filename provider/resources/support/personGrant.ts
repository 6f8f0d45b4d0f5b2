/**
 * A per-person resource (DatabaseUserPermissions, OrgMember, Invitation, and the member-field
 * resources OrgMemberPermissions and UserIdentifiers): one declared grant, a roster of one. A kind
 * says only what is its own (its inputs and state, how it finds the person through the gateway,
 * how it writes and removes, its words); the steps are here, once, on the same planner as the
 * rosters (access/plan.ts `planOne`: `planGrants` for a map of one):
 *
 * - diff: the fields compared (a DiffRule), then the window on the service's day (expired: removed
 *   once, preview says so; the end moved later after a removal: granted again; ending soon: warned),
 *   then anti-lockout at preview on what the change takes (lockout.ts, the one rule).
 * - check: anti-lockout of a create that would adopt a grant and take the administering permission.
 * - create, update: past the end nothing is written (update removes what is held, once); else the
 *   kind's write. The end date is the engine's to record (`expiredOn`).
 * - read (refresh): the person as listed; a grant removed at its end and still gone stays in state.
 * - delete: nothing when expiry removed it already; else the kind's removal.
 *
 * A field kind (`field`: one field of a person who is there already) differs in what its end
 * removes: the field is emptied and the person stays. So its person is found first at create and
 * update (absent fails, past the end too), and refresh drops it only once the person is gone.
 *
 * Not a GrantRosterKind: a roster lists its whole scope at every step, a per-person resource must
 * not (a plain preview sends nothing, an update writes without listing), so its "live" grant in
 * diff and update is the one its state last saw.
 */
import { administers, type Grant, type Scope, type Subject } from "../../../contract/grants";
import { planOne, type LiveGrant, type OneGrantPlan } from "../../access/plan";
import type { ReviewAdminClient } from "../../client";
import type { ResourceImplementation } from "./implementation";
import { dayIfDated, expiredLine, warnExpiringSoon } from "./expiry";
import {
  containsUnknown,
  defineResource,
  diffFields,
  type DiffRule,
  type Operation,
  type OutputList,
  type ResourceDefinition,
} from "./lifecycle";
import { assertAdminRemovalAllowed, refusalAsFailure } from "./lockout";
import { say } from "./messages";
import { definedOnly } from "../../util";
import type { PersonInputs, PersonState } from "./personTypes";

/** Where the grant stands on the service's day, as a kind's state records it. */
type Standing = OneGrantPlan["standing"];

/** The state fields every per-person kind has, which personGrant adds to a kind's outputs. */
const PERSON_OUTPUTS = ["allowAdminRemoval", "expiresOn", "expiringSoon", "expiredOn"] as const;

/** A kind's own state fields: its outputs list names these (`outputsMatch<OwnFields<S>>()`), personGrant the rest. */
export type OwnFields<S extends PersonState> = Omit<S, (typeof PERSON_OUTPUTS)[number]>;

/** What one per-person kind supplies; the rest is this file's. `I`: inputs, `S`: state, `L`: the person as listed. */
export interface PersonGrantKind<I extends PersonInputs, S extends PersonState, L> extends Omit<
  ResourceDefinition<I, S>,
  "check" | "diff" | "create" | "read" | "update" | "delete" | "outputs" | "subject"
> {
  /** The kind's own state fields (see OwnFields). */
  outputs: OutputList<OwnFields<S>>;
  /** The organization or database the grant is in, as inputs and state name it. */
  scope(x: I | S): Scope;
  /** How the fields compare (the diff's changes and replacements). */
  diffRule(olds: S, news: I): DiffRule;
  /** Who the state's grant is for; messages name them by email, else "user 1003"; who-changed looks them up. */
  person(s: S): Subject;
  /** The declared grant: a field left out is not managed. */
  grant(i: I): Grant;
  /** What the state last saw held, as a grant; undefined when nothing is. */
  heldGrant(s: S): LiveGrant | undefined;
  /** The person as listed in this run (the gateway's cached read), undefined when absent. */
  find(client: ReviewAdminClient, x: I | S): Promise<L | undefined>;
  /** Whether a listed person holds anything of the grant (false: as if absent). */
  holding(l: L): boolean;
  /**
   * The state of the person as listed now, without `expiringSoon` and `expiredOn` (the engine
   * records them); `live` undefined: removed at the end date (a field kind always gets its person).
   */
  stateOf(inputs: I, live: L | undefined, adopted: S["adopted"], olds?: S): S;
  /**
   * The inputs a state stands for (refresh writes them back). Left out: the state's fields the
   * inputs' schema names, each of `optional` only while the state's `managed` lists it.
   */
  inputsOf?(s: S): I;
  /** Inputs managed only when given: the state holds them as live and lists the given ones in `managed`. */
  optional?: readonly (keyof I & string)[];
  /** Anti-lockout of a create at check: the listed person, when the inputs that decide it are known. */
  adoptionGuard?: {
    /** The inputs that must be known to judge it. */
    known(i: I): unknown[];
    /** The listed person, read only when the declared grant could take what is guarded. */
    find(client: ReviewAdminClient, i: I): Promise<LiveGrant | undefined>;
  };
  /** More reasons the diff finds a change (a re-send due, an invitation accepted since); after the window. */
  moreChanges?(olds: S, news: I, op: Operation, replaced: boolean): Promise<boolean>;
  /** Whether the end date still applies to what the state holds (an accepted invitation: no). */
  expires?(olds: S, news: I, op: Operation): Promise<boolean>;
  /**
   * Set for a grant on one field of a person who is there already (see the file comment): how a
   * create or update finds that person (`olds`: the state an update starts from); throws when absent.
   */
  field?: { person(client: ReviewAdminClient, inputs: I, olds?: S): Promise<L> };
  /** Brings the person in line with the inputs at create (adopting what is there); `person`: a field kind's. Returns `stateOf`'s state. */
  create(inputs: I, op: Operation, person?: L): Promise<S>;
  /** Applies changed inputs before the end date; `person`: a field kind's. Returns `stateOf`'s state. */
  update(olds: S, news: I, op: Operation, person?: L): Promise<S>;
  /** Removes what the grant holds at its end date (anti-lockout still holding); a field kind empties `person`'s field and returns them. */
  expire(olds: S, news: I, op: Operation, person?: L): Promise<L | void>;
  /** Removes what the grant holds at delete. */
  remove(state: S, op: Operation): Promise<void>;
  words: {
    /** What a create past the end date does not do: "nothing granted", "nobody added"; absent: nothing is said. */
    noneMade?: string;
  };
}

/** The declared grant without what a preview does not know yet: a field not known is judged at up. */
function knownGrant(g: Grant): Grant {
  const out = { ...g };
  if (containsUnknown(out.permissions)) delete out.permissions;
  if (containsUnknown(out.identifiers)) delete out.identifiers;
  if (containsUnknown(out.window)) delete out.window;
  return out;
}

/** A field kind's grant past its end: its fields emptied, the person kept. */
const emptied = (g: Grant): Grant =>
  definedOnly({ scope: g.scope, subject: g.subject, permissions: g.permissions && [], identifiers: g.identifiers && [] });

/**
 * The state with what the engine records of the window: `expiringSoon` (the end date while it is
 * near) and `expiredOn` (the date the grant was removed at), each set or gone.
 */
const recorded = <I extends PersonInputs, S extends PersonState>(state: S, inputs: I, standing: Standing, expiredOn?: string): S =>
  definedOnly({ ...state, expiringSoon: standing === "soon" ? inputs.expiresOn : undefined, expiredOn });

/** The inputs a state stands for, by the default rule (see PersonGrantKind.inputsOf). */
function storedInputs<I>(names: string[], state: PersonState, optional: readonly string[]): I {
  const fields = state as PersonState & { managed?: readonly string[] } & Record<string, unknown>;
  const left = new Set(optional.filter((f) => !fields.managed?.includes(f)));
  return definedOnly(Object.fromEntries(names.filter((n) => !left.has(n)).map((n) => [n, fields[n]]))) as I;
}

/** Builds a per-person resource's implementation from its kind (see the file comment). */
export function personGrant<I extends PersonInputs, S extends PersonState, L>(kind: PersonGrantKind<I, S, L>): ResourceImplementation {
  const scopeOf = kind.scope;
  // The default inputsOf names the inputs by the schema's fields: an object schema's `shape`.
  const names = Object.keys((kind.inputs as { shape?: object }).shape ?? {});
  if (!kind.inputsOf && !names.length) throw new Error(`${kind.kind}: a kind without inputsOf needs an object schema`);
  const inputsOf = kind.inputsOf ?? ((s: S) => storedInputs<I>(names, s, kind.optional ?? []));
  const userIdOf = (g: LiveGrant | undefined) => g?.subject.userId ?? undefined;

  /** The one grant planned on the service's day (asked only when the grant has an end date). */
  async function planFor(op: Operation, inputs: I, have: LiveGrant | undefined) {
    const want = knownGrant(kind.grant(inputs));
    const day = await dayIfDated(op.client, [want.window ?? {}]);
    const plan = planOne(want, have, { scope: scopeOf(inputs), day, soonDays: op.run.soonDays() });
    // Past its end a field kind's grant is its field emptied: what that takes is what the end takes.
    if (plan.standing === "expired" && kind.field)
      return { ...plan, losing: planOne(emptied(kind.grant(inputs)), have, { scope: scopeOf(inputs) }).losing, day };
    return { ...plan, day };
  }

  /** Refuses at preview what anti-lockout refuses: taking what is guarded from the person `held` names. */
  async function assertKept(client: ReviewAdminClient, x: I | S, held: LiveGrant | undefined, action: string, refresh = false) {
    const userId = userIdOf(held);
    if (userId !== undefined) await assertAdminRemovalAllowed(client, scopeOf(x), userId, action, !refresh);
  }

  // What the lifecycle knows of a resource (lifecycle.ts); the kind's own steps stay here.
  const { hideDiffs, claims, holds, upgrade } = kind;
  const who = (s: S) => {
    const p = kind.person(s);
    return p.email ?? `user ${p.userId}`;
  };
  return defineResource<I, S>({
    ...definedOnly({ hideDiffs, claims, holds, upgrade }),
    subject: (s) => ({ scope: scopeOf(s), subject: kind.person(s) }),
    kind: kind.kind,
    inputs: kind.inputs,
    outputs: [...kind.outputs, ...PERSON_OUTPUTS] as readonly string[] as OutputList<S>,
    label: kind.label,
    idOf: kind.idOf,

    async check(inputs, olds, { client, action }) {
      const guard = kind.adoptionGuard;
      if (!guard || Object.keys(olds).length > 0 || containsUnknown(guard.known(inputs)) || inputs.allowAdminRemoval)
        return { failures: [] };
      // A create only adopts: only declared permissions lacking the administering one can take it, and only then is the scope listed.
      const want = kind.grant(inputs);
      if (!want.permissions || administers(want.scope.kind, want.permissions)) return { failures: [] };
      const have = await guard.find(client, inputs);
      if (!have || !planOne(want, have, { scope: scopeOf(inputs) }).losing) return { failures: [] };
      return { failures: await refusalAsFailure("permissions", () => assertKept(client, inputs, have, action)) };
    },

    async diff(olds, news, op) {
      const { client, action, refresh } = op;
      const result = diffFields(olds, news, kind.diffRule(olds, news));
      const replaced = !!result.replaces?.length;
      const held = kind.heldGrant(olds);
      const dated = !replaced && !containsUnknown(news.expiresOn) && (await (kind.expires?.(olds, news, op) ?? true));
      const plan = dated ? await planFor(op, news, held) : undefined;
      if (plan?.standing === "expired") {
        // Removed once; a later up with the date still past has nothing to do.
        if (olds.expiredOn) return { changes: false };
        say.warn(expiredLine(action, who(olds), news.expiresOn!));
        if (plan.losing && !news.allowAdminRemoval) await assertKept(client, olds, held, action, refresh);
        return { changes: true, replaces: [] };
      }
      if (plan?.standing === "soon" && !refresh) warnExpiringSoon(action, { [who(olds)]: news.expiresOn! }, plan.day!, (w) => w);
      // The end moved later (or went) after up removed the grant: granted again.
      if (plan && olds.expiredOn) return { changes: true, replaces: [] };
      const more = (await kind.moreChanges?.(olds, news, op, replaced)) ?? false;
      // Anti-lockout at preview, only when the change takes what is guarded; fields not known yet are judged at up.
      if (!replaced && !news.allowAdminRemoval) {
        const losing = plan ? plan.losing : (await planFor(op, { ...news, expiresOn: undefined }, held)).losing;
        if (losing) await assertKept(client, olds, held, action, refresh);
      }
      return { ...result, changes: result.changes || more };
    },

    async create(inputs, op) {
      // A field kind's person must be there, past the end too (the state names them): found before the day is asked.
      const person = await kind.field?.person(op.client, inputs);
      const { standing } = await planFor(op, inputs, undefined);
      if (standing === "expired") {
        if (kind.words.noneMade) say.warn(`${op.action}: expired on ${inputs.expiresOn}: ${kind.words.noneMade}`);
        return recorded(kind.stateOf(inputs, person, false), inputs, standing, inputs.expiresOn);
      }
      return recorded(await kind.create(inputs, op, person), inputs, standing);
    },

    async read(state, op) {
      const found = await kind.find(op.client, state);
      const held = !!found && kind.holding(found);
      // Removed at its end date and still gone: kept as it is. Back by hand: the next up removes it again.
      if (!held && state.expiredOn && !kind.field) return { state };
      // A field kind's person holding an empty field is still there (emptied at its end, or by hand).
      const live = held || kind.field ? found : undefined;
      if (!live) return undefined;
      const inputs = inputsOf(state);
      const { standing } = await planFor(op, inputs, undefined);
      // Emptied at its end date and still empty: a field kind's state keeps saying so.
      const fresh = recorded(kind.stateOf(inputs, live, state.adopted, state), inputs, standing, held ? undefined : state.expiredOn);
      return { state: fresh, inputs: inputsOf(fresh) };
    },

    async update(olds, news, op) {
      const person = await kind.field?.person(op.client, news, olds);
      const { standing } = await planFor(op, news, undefined);
      if (standing !== "expired") return recorded(await kind.update(olds, news, op, person), news, standing);
      const left = olds.expiredOn ? person : await kind.expire(olds, news, op, person);
      return recorded(kind.stateOf(news, left || undefined, olds.adopted, olds), news, standing, news.expiresOn);
    },

    async delete(state, op) {
      if (state.expiredOn) return; // removed when it expired; what is there now was granted by someone else
      await kind.remove(state, op);
    },
  });
}
