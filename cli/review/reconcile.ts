/**
 * Reviewed = applied: each decision of a sign-off matched to what carried it out, or why not.
 * Pure: the command (reconcileCommand.ts) reads the service after the up (what each line holds
 * now, the activity log since the review), the up's engine events (upLog.ts) and the reviewed
 * plan, and this judges. The outcomes:
 * - carried out: the line holds what the decision asked, by the up's step of the resource that
 *   holds it (with the line the up printed for the person);
 * - kept: a keep decision's line holds what was reviewed;
 * - refused by anti-lockout: the up refused it (its error names the person and the scope);
 * - changed again in the web app: someone other than the key's user changed the line after the review;
 * - not yet applied: nothing changed the line since the review (the pull request not merged, the
 *   up not run, or the removal's end date not reached);
 * - unknown: the key cannot read the line now.
 */
import deepEqual from "fast-deep-equal";
import { eventNamesGrant } from "../../contract/grants";
import type { ActivityEvent } from "../../contract/types";
import type { ExportedAccess } from "../export/read";
import { grantOfLine } from "./format";
import type { CheckedDecision } from "./signoff";
import type { UpLog, UpStep } from "./upLog";

/** What became of one decision. */
export type Outcome = "carried out" | "kept" | "refused by anti-lockout" | "changed again in the web app" | "not yet applied" | "unknown";

/** One decision and its outcome, as reconcile.json records it. */
export interface Reconciled {
  email: string;
  organizationId: number;
  scope: string;
  decision: CheckedDecision["decision"];
  /** The permissions the packet showed for the line. */
  reviewed: string[];
  /** For a change, the permissions decided. */
  to?: string[];
  /** What the line holds now (null: no access on it); absent when unknown. */
  now?: string[] | null;
  outcome: Outcome;
  /** The up's step that carried it out (or failed on it), with what the up said about this person. */
  change?: { resource: string; op: string; said: string[] };
  /** The reviewed plan's steps for that resource (`pulumi preview --save-plan`), where a plan was given. */
  planned?: string[];
  /** Why, in words: the refusal, the web application's change, or what is still to happen. */
  why?: string;
}

/** What reconcile judges with. */
export interface ReconcileFacts {
  /** The line's permissions now per decision, null when not held, undefined when unknown. */
  held: (d: CheckedDecision) => string[] | null | undefined;
  /** The activity log of the decision's organization since the review, sorted. */
  events: (orgId: number) => readonly ActivityEvent[];
  /** The key's user: its changes are the program's, not the web application's. */
  keyUserId: number | undefined;
  /** How an actor of the log is named ("Grace Hopper <grace@...> (user 1002)"). */
  actor: (userId: number | null | undefined) => string;
  up?: UpLog;
  /** The reviewed plan's steps by resource URN. */
  plan?: ReadonlyMap<string, string[]>;
}

/**
 * The permissions the decision's line holds in what the service answered: null when it holds none
 * (not a member or invited; no grant on the database), undefined when the key cannot read it.
 */
export function heldNow(d: CheckedDecision, access: ExportedAccess): string[] | null | undefined {
  const org = access.organizations.find((o) => o.id === d.organizationId);
  const db = /^database (\d+)$/.exec(d.line.scope)?.[1];
  if (!org) return undefined;
  if (db === undefined)
    return (org.members.find((m) => m.email === d.email) ?? org.invitations.find((i) => i.email === d.email))?.permissions ?? null;
  if (org.skippedDatabases.some((s) => s.id === Number(db))) return undefined;
  return org.databases.find((x) => x.id === Number(db))?.grants.find((g) => g.userId === d.userId)?.permissions ?? null;
}

const sorted = (list: readonly string[]) => [...list].sort();

/** How the up names the person in its lines: their email, or "user <id>" at a database. */
const marks = (d: CheckedDecision) => [d.email, ...(d.userId !== null ? [`user ${d.userId}`] : [])];
const mentions = (text: string, d: CheckedDecision) => marks(d).some((m) => new RegExp(`(^|[^\\w.@-])${escape(m)}(?![\\w@-])`).test(text));
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The up's resource steps that hold the decision's line: its scope, and its person for a per-person resource. */
function stepsFor(d: CheckedDecision, up: UpLog): UpStep[] {
  const db = /^database (\d+)$/.exec(d.line.scope)?.[1];
  return up.steps.filter((s) => {
    const scoped = db === undefined ? s.organizationId === d.organizationId && s.databaseId === undefined : s.databaseId === Number(db);
    if (!scoped) return false;
    if (s.email !== undefined) return s.email === d.email;
    if (s.userId !== undefined) return s.userId === d.userId;
    return true;
  });
}

/** What the up said about this person on `urn`: each line naming them, once (an up with --plan says its plan's lines twice). */
function said(d: CheckedDecision, up: UpLog, urn: string): string[] {
  const lines = up.diagnostics
    .filter((x) => x.urn === urn)
    .flatMap((x) => x.message.split("\n"))
    .map((l) => l.trim())
    .filter((l) => l !== "" && mentions(l, d));
  return [...new Set(lines)];
}

/** The up's anti-lockout refusal of this decision: an error naming the person and the scope. */
function refusal(d: CheckedDecision, up: UpLog | undefined): { urn: string; line: string } | undefined {
  const scope = d.line.scope === "organization" ? `organization ${d.organizationId}` : d.line.scope;
  for (const x of up?.diagnostics ?? []) {
    if (x.severity !== "error") continue;
    const line = x.message.split("\n").find((l) => l.includes("refused:") && mentions(l, d) && l.includes(scope));
    if (line) return { urn: x.urn, line: line.trim() };
  }
  return undefined;
}

/** The latest event since the review that changed this line by someone other than the key's user. */
function webAppChange(d: CheckedDecision, f: ReconcileFacts): ActivityEvent | undefined {
  const grant = grantOfLine(d.line, { key: d.email, userId: d.userId }, d.organizationId);
  return f
    .events(d.organizationId)
    .filter((e) => e.userId !== f.keyUserId && e.userId != null && eventNamesGrant(e.data, grant))
    .at(-1);
}

/** Judges one decision. */
export function reconcileDecision(d: CheckedDecision, f: ReconcileFacts): Reconciled {
  const base = {
    email: d.email,
    organizationId: d.organizationId,
    scope: d.line.scope,
    decision: d.decision,
    reviewed: sorted(d.line.permissions),
    ...(d.decision === "change" ? { to: sorted(d.permissions) } : {}),
  };
  const now = f.held(d);
  if (now === undefined) return { ...base, outcome: "unknown", why: "the key cannot read this line now" };
  const want = d.decision === "remove" ? null : d.decision === "change" ? sorted(d.permissions) : sorted(d.line.permissions);
  const done = now === null ? want === null : want !== null && deepEqual(sorted(now), want);
  const withNow = { ...base, now: now === null ? null : sorted(now) };
  const step = f.up && stepsFor(d, f.up).find((s) => s.op !== "same" && s.op !== "read" && !s.failed);
  const planned = (urn: string) => (f.plan ? { planned: f.plan.get(urn) ?? [] } : {});
  if (done && d.decision !== "keep") {
    if (!f.up) return { ...withNow, outcome: "carried out", why: "the service holds what was decided; give --up-log to name the change" };
    if (!step) {
      const web = webAppChange(d, f);
      const by = web
        ? `in the web application (${web.type} at ${new Date(web.timestamp).toISOString()} by ${f.actor(web.userId)})`
        : "outside this up";
      return {
        ...withNow,
        outcome: "carried out",
        why: `the service holds what was decided, done ${by}: the up's log changed no resource holding this line`,
      };
    }
    return {
      ...withNow,
      outcome: "carried out",
      change: { resource: step.urn, op: step.op, said: said(d, f.up, step.urn) },
      ...planned(step.urn),
    };
  }
  if (done) return { ...withNow, outcome: "kept" };
  const refused = refusal(d, f.up);
  if (refused)
    return {
      ...withNow,
      outcome: "refused by anti-lockout",
      change: { resource: refused.urn, op: step?.op ?? "refused", said: said(d, f.up!, refused.urn) },
      ...planned(refused.urn),
      why: refused.line,
    };
  const web = webAppChange(d, f);
  if (web)
    return {
      ...withNow,
      outcome: "changed again in the web app",
      why: `${web.type} at ${new Date(web.timestamp).toISOString()} by ${f.actor(web.userId)}`,
    };
  return {
    ...withNow,
    outcome: "not yet applied",
    why:
      d.decision === "keep"
        ? "the line changed since the review, and no event in the activity log names who changed it"
        : "nothing changed this line since the review: the sign-off's pull request not merged, its up not run, or the removal's end date not reached",
  };
}
