/**
 * Anti-lockout, as the resources apply it: the rule itself is one pure function
 * (access/plan.ts `lockoutRefusal`), the same for organizations and databases. No change made by
 * this provider may take from the API key's own user what lets the program manage the scope
 * (ORG_ADMIN or membership of an organization, DB_ADMIN on a database), take an organization's
 * last org admin, or take a database's last DB_ADMIN when no one else administers it (its
 * orgAdminAccess is off, or its organization has no org admin), unless the resource says
 * `allowAdminRemoval: true`. Refusals name who and why; a database's last DB_ADMIN that goes
 * because its organization's org admins still administer it is said, at preview and at up.
 *
 * Two moments: at preview (diff, check) the rule is judged on the run's cached lists, so a plain
 * preview sends nothing more; at up, every write that takes that from an administrator (or from
 * the key's own user) goes through `guardAdminLoss`, which decides the scope's removals one at a
 * time against a fresh list and makes the write before the next one is decided. Two resources
 * removing the last two admins in parallel therefore cannot both pass.
 */
import type * as pulumi from "@pulumi/pulumi";
import { administers, type Scope } from "../../../contract/grants";
import type { ReviewAdminClient } from "../../client";
import { isStatus, ResourceError } from "../../failures";
import { describedDatabase, listedDatabaseUsers, relistDatabaseUsers } from "../../access/databaseGrants";
import { listedMembers, relistMembers, type AdminLossGuard } from "../../access/orgPeople";
import { lastAdminsNote, lockoutCause, lockoutRefusal, type DatabaseBackstop, type LiveGrant, type NameOf } from "../../access/plan";
import { personText, type PersonFacts } from "../../../contract/people";
import { currentUser, perClient } from "../../access/runCache";
import { say } from "./messages";

/** An anti-lockout refusal: the change was not made. The message names who and why. */
export class LockoutRefusal extends ResourceError {}

/**
 * Runs a plan-time anti-lockout `guard` and returns its refusal as a failure of `property`, so
 * that a check names the field. A guard that cannot read what it needs (a key without access: 403)
 * finds nothing: up makes the same read, and fails there with the worded error.
 */
export async function refusalAsFailure(property: string, guard: () => Promise<void>): Promise<pulumi.dynamic.CheckFailure[]> {
  try {
    await guard();
    return [];
  } catch (err) {
    if (err instanceof LockoutRefusal) return [{ property, reason: err.message }];
    return [];
  }
}

/** Everyone holding access at the scope, as grants, from the run's list (`fresh`: listed again). */
async function everyoneAt(client: ReviewAdminClient, scope: Scope, fresh: boolean): Promise<LiveGrant[]> {
  if (scope.kind === "organization") {
    const members = await (fresh ? relistMembers : listedMembers)(client, scope.id);
    return [...members.values()].map((m) => ({ scope, subject: { email: m.email, userId: m.id }, permissions: m.permissions }));
  }
  const users = await (fresh ? relistDatabaseUsers : listedDatabaseUsers)(client, scope.id);
  return [...users.values()].map((u) => ({ scope, subject: { email: u.user.email, userId: u.user.id }, permissions: u.permissions }));
}

/** The key's own user as a subject, or undefined for a key without a user of its own. */
async function me(client: ReviewAdminClient) {
  const user = await currentUser(client);
  return user && { userId: user.id, email: user.email ?? user.username ?? undefined };
}

/**
 * Who else administers a database (access/plan.ts `DatabaseBackstop`), read only when its last
 * DB_ADMINs would go: its description (E27) and its organization's members, from the run's lists
 * (`fresh`: listed again). Undefined for an organization, or when the key may not read them.
 */
export async function backstopOf(client: ReviewAdminClient, scope: Scope, fresh: boolean): Promise<DatabaseBackstop | undefined> {
  if (scope.kind !== "database") return undefined;
  try {
    const db = await describedDatabase(client, scope.id);
    const organizationId = db.owningOrganizationId;
    if (!db.orgAdminAccess) return { organizationId, orgAdminAccess: false, orgAdmins: 0 };
    const members = await (fresh ? relistMembers : listedMembers)(client, organizationId);
    const orgAdmins = [...members.values()].filter((m) => administers("organization", m.permissions)).length;
    return { organizationId, orgAdminAccess: true, orgAdmins };
  } catch (err) {
    // Not allowed to read them: nobody is known to administer it, so its last DB_ADMIN stays.
    if (isStatus(err, 403) || isStatus(err, 404)) return undefined;
    throw err;
  }
}

/**
 * The judgement of taking what `losing` lose at the scope (everyone live there: `everyone`): the
 * refusal, else what to say when a database's last DB_ADMINs go (lastAdminsNote). The backstop is
 * read only when the rule needs it.
 */
async function judge(
  client: ReviewAdminClient,
  everyone: readonly LiveGrant[],
  losing: readonly LiveGrant[],
  what: string,
  fresh: boolean,
) {
  const scope = losing[0]!.scope;
  const user = await me(client);
  const cause = lockoutCause(scope, everyone, losing, user);
  if (!cause) return {};
  const backstop = cause.kind === "lastAdmins" ? await backstopOf(client, scope, fresh) : undefined;
  const nameOf = await namerAt(client, scope);
  const problem = lockoutRefusal(scope, everyone, losing, user, what, backstop, nameOf);
  return problem ? { refusal: new LockoutRefusal(problem) } : { note: lastAdminsNote(scope, everyone, losing, backstop, what, nameOf) };
}

/**
 * How refusals and notes name the scope's people: by name and email from the run's list of the
 * scope, as every message names people (contract/people.ts); as the grant says where the list
 * cannot be read.
 */
async function namerAt(client: ReviewAdminClient, scope: Scope): Promise<NameOf> {
  const facts = new Map<number, PersonFacts>();
  try {
    if (scope.kind === "organization") for (const m of (await listedMembers(client, scope.id)).values()) facts.set(m.id, m);
    else
      for (const u of (await listedDatabaseUsers(client, scope.id)).values())
        facts.set(u.user.id, { ...u.user, email: u.user.email ?? u.user.username });
  } catch {
    // Not readable by this key: the grants' own email and id name them.
  }
  return (s) =>
    personText({
      ...(s.userId != null ? facts.get(s.userId) : undefined),
      email: s.email ?? facts.get(s.userId ?? -1)?.email,
      userId: s.userId,
    });
}

// The notes said in each run (keyed by the run's client): a plan judged at check, diff and up says its note once.
const notesSaid = perClient(() => new Set<string>());

/** Says a judgement's note, once per run. */
function sayOnce(client: ReviewAdminClient, note: string | undefined): void {
  if (!note || notesSaid(client).has(note)) return;
  notesSaid(client).add(note);
  say.warn(note);
}

/**
 * Preview-time check of a plan on the resource's view of everyone live at the scope (`everyone`,
 * managed or not): throws the refusal when taking what `losing` lose is not allowed, and (`speak`;
 * not in a refresh, which takes nothing) says who loses a database's last DB_ADMIN when its
 * organization's org admins still administer it.
 */
export async function assertKeepsAdmins(
  client: ReviewAdminClient,
  everyone: readonly LiveGrant[],
  losing: readonly LiveGrant[],
  what: string,
  speak = true,
): Promise<void> {
  if (losing.length === 0) return;
  const judged = await judge(client, everyone, losing, what, false);
  if (judged.refusal) throw judged.refusal;
  if (speak) sayOnce(client, judged.note);
}

/** The judgement of taking what anti-lockout guards from the users `targets` at the scope, on its list now. */
async function judgeTargets(client: ReviewAdminClient, scope: Scope, targets: readonly number[], what: string, fresh: boolean) {
  const everyone = await everyoneAt(client, scope, fresh);
  const losing = targets.map((id) => everyone.find((g) => g.subject.userId === id) ?? { scope, subject: { userId: id } });
  return judge(client, everyone, losing, what, fresh);
}

/** Preview-time anti-lockout on the run's cached list: throws when taking what is guarded from `userId` is not allowed; says a last DB_ADMIN's loss (`speak`: not in a refresh). */
export async function assertAdminRemovalAllowed(
  client: ReviewAdminClient,
  scope: Scope,
  userId: number,
  what: string,
  speak = true,
): Promise<void> {
  const judged = await judgeTargets(client, scope, [userId], what, false);
  if (judged.refusal) throw judged.refusal;
  if (speak) sayOnce(client, judged.note);
}

// One queue per scope in each run (keyed by the run's client): admin removals at a scope are decided in turn.
const queues = perClient(() => new Map<string, Promise<unknown>>());

function inTurn<T>(client: ReviewAdminClient, scope: Scope, fn: () => Promise<T>): Promise<T> {
  const perScope = queues(client);
  const key = `${scope.kind}:${scope.id}`;
  const turn = (perScope.get(key) ?? Promise.resolve()).then(fn, fn);
  perScope.set(
    key,
    turn.catch(() => undefined),
  );
  return turn;
}

/**
 * Runs `write`, which takes what anti-lockout guards from `targets` at the scope (see the file
 * comment). Writes that touch neither an administrator (in the run's list) nor the key's own user
 * go straight through; the others wait their turn for the scope, are judged against a fresh list,
 * and write before the next one is judged.
 */
export async function guardAdminLoss<T>(
  client: ReviewAdminClient,
  scope: Scope,
  targets: readonly number[],
  what: string,
  write: () => Promise<T>,
): Promise<T> {
  const [cached, user] = await Promise.all([everyoneAt(client, scope, false), me(client)]);
  const risky = targets.some(
    (id) => id === user?.userId || administers(scope.kind, cached.find((g) => g.subject.userId === id)?.permissions),
  );
  if (!risky) return write();
  return inTurn(client, scope, async () => {
    // Said already at the plan (assertKeepsAdmins, assertAdminRemovalAllowed): here only judged again.
    const judged = await judgeTargets(client, scope, targets, what, true);
    if (judged.refusal) throw judged.refusal;
    return write();
  });
}

/** The guard a gateway's write takes (orgPeople.ts `AdminLossGuard`): `guardAdminLoss` at the scope, or straight through when `allow`. */
export function adminLossGuard(client: ReviewAdminClient, scope: Scope, what: string, allow: boolean | undefined): AdminLossGuard {
  return (userId, write) => (allow ? write() : guardAdminLoss(client, scope, [userId], what, write));
}
