/**
 * A roster of grants: the one way both rosters (OrganizationMembers, DatabaseUsers) preview,
 * apply and refresh access. A roster kind says only what is its own (its inputs and state, how it
 * reads its scope and writes one entry, how it names people); the steps are here, once:
 *
 * - diff: unknowns and replacement, who is live, the plan (access/plan.ts: window, adds, changes,
 *   removals, handover, anti-lockout), the drift gate, the preview's lines (rosterChanges.ts), and
 *   every setting compared generically: each input that is not the scope or the map.
 * - reconcile (create and update): read, plan, refuse a lockout, say what is handed over, adopted
 *   and expired, write with progress (the kind's writes; admin removals in turn, lockout.ts), record
 *   who was found at the first apply, and run the drift gate after the writes.
 * - read (refresh): re-list, count the end dates again, name who waits for a decision.
 */
import deepEqual from "fast-deep-equal";
import type { z } from "zod";
import { claimKeysOf, isPrivileged, type Grant, type Scope, type ScopeKind } from "../../../contract/grants";
import { planGrants, type AccessPlan, type LiveGrant, type RosterWrite } from "../../access/plan";
import type { ReviewAdminClient } from "../../client";
import { sameSet } from "../../normalize";
import { definedOnly } from "../../util";
import { dateFields, dayIfDated, endsNow, warnExpiringSoon } from "./expiry";
import type { Run } from "./run";
import { containsUnknown, UNKNOWN, Unwritten, type Operation } from "./lifecycle";
import { assertKeepsAdmins, guardAdminLoss } from "./lockout";
import { say } from "./messages";
import { adoptionNote, gateAfterWrites, gateInDiff, gateInRead, progressOf, rosterResource, type RosterDefinition } from "./roster";
import type { OnUnmanaged, RosterMode } from "../../access/rosterMode";
import { changeMessage, entryLines, settingLines, type EntryView, type SettingRule } from "./rosterChanges";
import {
  adoptionRecord,
  adoptionText,
  gateFindings,
  keptRecord,
  type FoundWhenAdopted,
  type GateFinding,
  type UnmanagedHolder,
} from "../../access/gate";
import { addedOutside, changedBy, targetOfGrant, type People } from "./whoChanged";

/** The settings every roster's inputs hold besides its scope and its map. */
export interface RosterSettings {
  mode: RosterMode;
  allowAdminRemoval?: boolean;
  onUnmanaged?: OnUnmanaged;
  knownExceptions?: readonly (string | number)[];
  declaredElsewhere?: Record<string, string>;
}

/** What every roster's state holds besides its kind's own fields. */
export interface RosterStateBase extends RosterSettings {
  expiresOn?: Record<string, string>;
  expiringSoon?: Record<string, string>;
  expired?: Record<string, string>;
  foundWhenAdopted?: FoundWhenAdopted;
}

/** What one roster kind supplies; the rest is this file's. `I`: inputs, `S`: state, `L`: one live entry, `R`: the scope as listed. */
export interface GrantRosterKind<I extends RosterSettings, S extends RosterStateBase, L, R, M> extends Omit<
  RosterDefinition<I, S>,
  "diff" | "reconcile" | "readLive" | "previewAdoption" | "people"
> {
  inputs: z.ZodType<I>;
  scopeKind: ScopeKind;
  /** The scope's id as inputs and state hold it. */
  scopeId(x: I | S): number;
  /** Whether a replacement (the scope changed) deletes first. */
  deleteBeforeReplace: boolean;
  /** The inputs' map field ("members", "users"): every other input but the scope is a setting the preview compares. */
  mapField: string;
  /** The settings' values when left out, and what an added list entry means ("never removed"), for the preview's lines. */
  settingRules: readonly SettingRule[];
  words: {
    /** "people", "users": what progress and change messages count. */
    entries: string;
    /** What an adopted entry is: "people", "users' permissions". */
    adopted: string;
    /** How a key is named in messages. */
    name(key: string, live: L | undefined): string;
    handedOver(key: string, holder: string): string;
    expired(key: string, end: string): string;
    /** Why an authoritative roster removes someone. */
    removedWhy: string;
    /** What an additive roster does about an entry the map no longer holds. */
    dropped(key: string, live: L): string;
    /** "added outside this program". */
    addedOutside: string;
    /** How to decide about someone the drift gate stops on. */
    declare: string;
  };
  /** Order of keys in messages and state. */
  order(a: string, b: string): number;
  /** The map as grants by key (contract/grants.ts): a field left out is not managed. */
  grants(i: I): Record<string, Grant>;
  /** The inputs with only `keys` of the map (the entries in their window). */
  onDay(i: I, keys: readonly string[]): I;
  /** Keys authoritative mode never removes. */
  protectedKeys(i: I): string[];
  /** The scope as listed in this run (the gateway's cached read; after writes it holds them); `stored`, when there is one, may speed the read. */
  read(client: ReviewAdminClient, id: number, stored?: S): Promise<R>;
  /** What the roster manages of each entry, from the inputs, and as a state stores it. */
  managedOf(i: I): M;
  storedManaged(s: S): M;
  /** The keys a state's record of what is managed holds. */
  managedKeys(s: S): string[];
  /** The state of a listed scope: entries of the map (everyone when authoritative) and the unmanaged. */
  stateOf(settings: I, managed: M, listed: R): S;
  /** The entries of the map in a state, and the unmanaged ones, by key. */
  entries(s: S): Record<string, L>;
  unmanaged(s: S): Record<string, L>;
  /** One live entry as a grant. */
  liveGrant(scope: Scope, key: string, live: L): LiveGrant;
  /** Writes the plan (adds, changes, removals) in the kind's order: its gateway's roster writes. */
  write(step: RosterWrite<I, R>): Promise<void>;
  /** Hook for a diff: the map's entries as the preview should judge them (OrganizationMembers looks up invitations that may have been accepted). */
  storedEntries?(olds: S, news: I, op: Operation): Promise<Record<string, L>>;
  /** The inputs a live state stands for (refresh writes them back). */
  inputsOf(s: S): I;
}

type Plan<I> = AccessPlan & { now: I; day?: string };

const identifiersText = (list: Grant["identifiers"]) => list && list.map((i) => `${i.abbreviation} "${i.label}"`).join(", ");

/** How the preview compares one entry (rosterChanges.ts), declared or live. */
const viewOf = (g: Grant & { status?: string }): EntryView => ({
  permissions: g.permissions,
  identifiers: identifiersText(g.identifiers),
  status: g.status,
});

/** Builds a roster's implementation from its kind (see the file comment). */
export function grantRoster<I extends RosterSettings, S extends RosterStateBase, L, R, M>(kind: GrantRosterKind<I, S, L, R, M>) {
  // What the drift gate's default (failOnPrivileged) stops on: the grant model's privileges.
  const privileged = (permission: string) => isPrivileged(kind.scopeKind, permission);
  // Who else declares a person: the roster's declaredElsewhere input, then the run's claims so far (handover.ts).
  const inRun = (run: Run, settings: I | S) => (keys: readonly string[]) => run.claims.holderOf(keys, settings.declaredElsewhere ?? {});
  const scopeOf = (x: I | S): Scope => ({ kind: kind.scopeKind, id: kind.scopeId(x) });
  const liveGrants = (scope: Scope, live: Record<string, L>) =>
    Object.fromEntries(Object.entries(live).map(([k, l]) => [k, kind.liveGrant(scope, k, l)]));
  /** Everyone listed at the scope, managed or not, by key. */
  const everyoneIn = (settings: I, listed: R) =>
    kind.entries(kind.stateOf({ ...settings, mode: "authoritative" }, kind.managedOf({ ...settings, [kind.mapField]: {} }), listed));
  /** The state's unmanaged people as the drift gate sees them, keyed as the grant model claims them; an expired invitation grants nothing. */
  const holders = (s: S): UnmanagedHolder[] =>
    Object.entries(kind.unmanaged(s)).flatMap(([k, l]) => {
      const g = kind.liveGrant(scopeOf(s), k, l);
      if (g.status === "expired") return [];
      return [
        definedOnly({ who: kind.words.name(k, l), key: k, keys: claimKeysOf(g), permissions: g.permissions ?? [], status: g.status }),
      ];
    });
  /** Who the drift gate stops on, judged with `settings` against the record of `state`. */
  const gate = (run: Run, settings: I | S, state: S): GateFinding[] =>
    gateFindings(settings, holders(state), privileged, state.foundWhenAdopted, inRun(run, settings));
  /** Who made a finding's person what they are, from the activity log since the roster was last applied. */
  const describeFor = (op: Operation, state: S) => (f: GateFinding) => {
    // A finding is one of the state's unmanaged people (gate(settings, state) judges only them).
    const g = kind.liveGrant(scopeOf(state), f.holder.key, kind.unmanaged(state)[f.holder.key]!);
    return changedBy(op.client, targetOfGrant(g, op.appliedAt));
  };
  /** Who-changed at refresh: the map's entries (everyone when authoritative) and the unmanaged, by key, each as its live grant. */
  const people = (s: S): People =>
    new Map(
      [...Object.entries(kind.entries(s)), ...Object.entries(kind.unmanaged(s))].map(([k, l]) => {
        const { scope, subject } = kind.liveGrant(scopeOf(s), k, l);
        return [k, { grant: { scope, subject }, held: l }];
      }),
    );
  /** The state with what the first apply found kept while they hold no more than then. */
  const withRecord = (s: S, found: FoundWhenAdopted | undefined): S =>
    definedOnly({ ...s, foundWhenAdopted: keptRecord(found, holders(s)) }) as S;

  /** The plan (access/plan.ts) on the service's day; `now`: the inputs with only the entries in their window. */
  async function planFor(op: Operation, inputs: I, live: Record<string, L>): Promise<Plan<I>> {
    const { client, run } = op;
    const grants = kind.grants(inputs);
    // Today by the service's clock, asked only when an entry has a date.
    const day = await dayIfDated(
      client,
      Object.values(grants).map((g) => g.window ?? {}),
    );
    const scope = scopeOf(inputs);
    const plan = planGrants(grants, liveGrants(scope, live), {
      scope,
      mode: inputs.mode,
      protectedKeys: kind.protectedKeys(inputs),
      declaredElsewhere: (keys) => run.claims.holderOf(keys, inputs.declaredElsewhere),
      day,
      soonDays: run.soonDays(),
    });
    // Every entry in its window (the usual case): the inputs as they are.
    const now = Object.keys(plan.current).length === Object.keys(grants).length ? inputs : kind.onDay(inputs, Object.keys(plan.current));
    return { ...plan, now, day };
  }

  /** Anti-lockout at preview (lockout.ts), on everyone live at the scope, managed or not. */
  async function guardLockout(
    client: ReviewAdminClient,
    inputs: I,
    everyone: Record<string, L>,
    plan: AccessPlan,
    action: string,
    refresh = false,
  ) {
    // Nothing taken, nothing to judge: everyone as grants costs a second at 28,007 people.
    if (inputs.allowAdminRemoval || plan.losing.length === 0) return;
    const grants = liveGrants(scopeOf(inputs), everyone);
    await assertKeepsAdmins(
      client,
      Object.values(grants),
      plan.losing.map((k) => grants[k]!),
      action,
      !refresh,
    );
  }

  /** Makes the scope match the roster: the kind's writes, the notes around them, the gate after. */
  async function reconcile(declared: I, op: Operation, previous: S | undefined): Promise<S | Unwritten<S>> {
    const { client, action } = op;
    const scope = scopeOf(declared);
    const listed = await kind.read(client, scope.id);
    const live = everyoneIn(declared, listed);
    const plan = await planFor(op, declared, live);
    const inputs = plan.now;
    await guardLockout(client, inputs, live, plan, action);
    for (const [key, holder] of plan.handedOver) say.info(`${action}: ${kind.words.handedOver(key, holder)}`);
    const adopted = previous ? [] : Object.keys(kind.grants(inputs)).filter((k) => live[k]);
    const note = adoptionNote(action, kind.words.adopted, adopted);
    if (note) say.info(note);
    for (const k of Object.keys(plan.expired).filter((x) => live[x])) say.info(`${action}: ${kind.words.expired(k, plan.expired[k]!)}`);
    const writes = plan.add.length + plan.change.length + plan.remove.length;
    const losing = inputs.allowAdminRemoval ? [] : plan.losing.flatMap((k) => kind.liveGrant(scope, k, live[k]!).subject.userId ?? []);
    await kind.write({
      client,
      action,
      scope,
      plan,
      now: inputs,
      listed,
      wrote: progressOf(action, writes, kind.words.entries),
      guarded: (write) => guardAdminLoss(client, scope, losing, action, write),
    });
    const after = withRecord(
      kind.stateOf(inputs, kind.managedOf(declared), writes ? await kind.read(client, scope.id) : listed),
      previous?.foundWhenAdopted,
    );
    if (!previous) {
      // The first apply: whoever is there undeclared was there before the program; said once, recorded.
      after.foundWhenAdopted = adoptionRecord(inputs, holders(after), privileged, inRun(op.run, inputs));
      const text = adoptionText(inputs, holders(after), after.foundWhenAdopted);
      if (text) say.warn(`${action}: ${text}`);
    }
    const state = definedOnly({ ...after, ...dateFields(plan) }) as S;
    // Who appeared or gained access since, and waits for a decision, fails the update now that the rest is applied.
    await gateAfterWrites(op, inputs, gate(op.run, inputs, state), describeFor(op, state), kind.words.declare, {
      state,
      wrote: writes > 0,
    });
    return writes > 0 || !previous ? state : new Unwritten(state);
  }

  /** The plan as the preview says it: one line per entry that changes (rosterChanges.ts). */
  function lines(news: I, plan: Plan<I>, have: Record<string, L>, olds: S, addedBy: Map<string, string>): string[] {
    const scope = scopeOf(news);
    // The grants declared today; views are made only for the entries that get a line.
    const want = plan.current;
    const declared = news[kind.mapField as keyof I] as Record<string, unknown>;
    const wasManaged = new Set(kind.managedKeys(olds));
    const changing = new Set(plan.change);
    return entryLines({
      name: (k) => kind.words.name(k, have[k]),
      declared: Object.keys(want),
      want: (k) => viewOf(want[k]!),
      have: (k) => (have[k] ? viewOf(kind.liveGrant(scope, k, have[k])) : undefined),
      add: plan.add,
      change: plan.change,
      remove: plan.remove,
      ends: plan.ends,
      storedEnds: olds.expiresOn ?? {},
      expired: plan.expired,
      removedWhy: kind.words.removedWhy,
      addedBy,
      adopted: Object.keys(want).filter((k) => have[k] && !wasManaged.has(k) && !changing.has(k)),
      dropped: news.mode === "additive" ? kind.managedKeys(olds).filter((k) => !declared[k] && have[k]) : [],
      droppedNote: (k) => kind.words.dropped(k, have[k]!),
      order: kind.order,
    });
  }

  // Every input but the scope and the map is a setting the preview compares: no hand list to forget one.
  const settingKeys = Object.keys((kind.inputs as unknown as z.ZodObject).shape).filter(
    (k) => k !== kind.mapField && k !== "organizationId" && k !== "databaseId",
  );
  const settingRules = settingKeys.map((key) => kind.settingRules.find((r) => r.key === key) ?? { key });

  return rosterResource<I, S>({
    ...kind,
    people,
    async diff(olds, news, op) {
      const { client, action, refresh } = op;
      // A preview with values not known yet: say it may change, and judge lockout at up.
      const id = kind.scopeId(olds);
      if (containsUnknown(news)) {
        const same = kind.scopeId(news) === id || (kind.scopeId(news) as unknown) === UNKNOWN;
        return { changes: true, replaces: same ? [] : [kind.scopeKind === "organization" ? "organizationId" : "databaseId"] };
      }
      if (kind.scopeId(news) !== id)
        return {
          changes: true,
          replaces: [kind.scopeKind === "organization" ? "organizationId" : "databaseId"],
          deleteBeforeReplace: kind.deleteBeforeReplace,
        };
      // Everyone live (managed or not), so switching to authoritative shows who would go. An
      // authoritative preview reads the scope now: whoever it would remove is named, people given
      // access since the last refresh included.
      const stored = { ...kind.unmanaged(olds), ...(kind.storedEntries ? await kind.storedEntries(olds, news, op) : kind.entries(olds)) };
      const have = news.mode === "authoritative" && op.preview && !refresh ? everyoneIn(news, await kind.read(client, id, olds)) : stored;
      const plan = await planFor(op, news, have);
      if (!refresh && plan.day) warnExpiringSoon(action, plan.soon, plan.day, (k) => kind.words.name(k, undefined));
      const settings = settingLines(olds, news, settingRules);
      const changed =
        settings.length > 0 ||
        !sameSet(Object.keys(news[kind.mapField as keyof I] as object), kind.managedKeys(olds)) ||
        !deepEqual(plan.ends, olds.expiresOn ?? {});
      // The drift gate, on who the last run or refresh found, with the program's settings (access/gate.ts).
      const waits = await gateInDiff(op, news, gate(op.run, news, olds), describeFor(op, olds), kind.words.declare);
      // Nothing to add, change or remove, the same keys and end dates: the preview has no line to make.
      const writes = plan.add.length + plan.change.length + plan.remove.length;
      if (!refresh && (changed || writes > 0)) {
        const fresh = new Map(plan.remove.filter((k) => !stored[k]).map((k) => [k, kind.liveGrant(scopeOf(news), k, have[k]!)]));
        const addedBy = await addedOutside(client, fresh, op.appliedAt, kind.words.addedOutside);
        const message = changeMessage(kind.label(news as never), lines(news, plan, have, olds, addedBy), settings, kind.words.entries);
        if (message) say.info(message);
      }
      // Anti-lockout at preview (it asks nothing unless the plan takes what it guards).
      await guardLockout(client, plan.now, have, plan, action, refresh);
      return { changes: writes > 0 || changed || waits, replaces: [] };
    },
    reconcile,
    async previewAdoption(inputs, op) {
      const state = kind.stateOf(inputs, kind.managedOf(inputs), await kind.read(op.client, kind.scopeId(inputs)));
      const text = adoptionText(inputs, holders(state), adoptionRecord(inputs, holders(state), privileged, inRun(op.run, inputs)), true);
      if (text) say.warn(`${op.action}: ${text}`);
    },
    async readLive(state, op) {
      const listed = withRecord(
        kind.stateOf(state as unknown as I, kind.storedManaged(state), await kind.read(op.client, kind.scopeId(state), state)),
        state.foundWhenAdopted,
      );
      // What expires soon is counted again from the stored end dates, so a refresh keeps the output current.
      const fresh = definedOnly({ ...listed, ...dateFields(await endsNow(op.client, state.expiresOn, op.run.soonDays())) }) as S;
      gateInRead(op, fresh, gate(op.run, fresh, fresh), kind.words.declare);
      return { state: fresh, inputs: kind.inputsOf(fresh) };
    },
  });
}
