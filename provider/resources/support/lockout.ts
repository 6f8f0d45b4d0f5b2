/**
 * Anti-lockout, as the resources apply it: the rule itself is one pure function
 * (access/plan.ts `lockoutRefusal`), the same for organizations and databases. No change made by
 * this provider may take from the API key's own user what lets the program manage the scope
 * (ORG_ADMIN or membership of an organization, DB_ADMIN on a database), or take the last
 * administrators from a scope (its last org admin, its last DB_ADMIN), unless the resource says
 * `allowAdminRemoval: true`. Refusals name who and why.
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
import { ResourceError } from "../../failures";
import { listedDatabaseUsers, relistDatabaseUsers } from "../../access/databaseGrants";
import { listedMembers, relistMembers, type AdminLossGuard } from "../../access/orgPeople";
import { lockoutRefusal, type LiveGrant } from "../../access/plan";
import { currentUser, perClient } from "../../access/runCache";

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
 * Preview-time check of a plan on the resource's view of everyone live at the scope (`everyone`,
 * managed or not): throws the refusal when taking what `losing` lose is not allowed.
 */
export async function assertKeepsAdmins(
  client: ReviewAdminClient,
  everyone: readonly LiveGrant[],
  losing: readonly LiveGrant[],
  what: string,
): Promise<void> {
  if (losing.length === 0) return;
  const problem = lockoutRefusal(losing[0]!.scope, everyone, losing, await me(client), what);
  if (problem) throw new LockoutRefusal(problem);
}

/** The refusal of taking what anti-lockout guards from the users `targets` at the scope, judged on its list now. */
async function refusal(client: ReviewAdminClient, scope: Scope, targets: readonly number[], what: string, fresh: boolean) {
  const everyone = await everyoneAt(client, scope, fresh);
  const losing = targets.map((id) => everyone.find((g) => g.subject.userId === id) ?? { scope, subject: { userId: id } });
  const problem = lockoutRefusal(scope, everyone, losing, await me(client), what);
  return problem ? new LockoutRefusal(problem) : undefined;
}

/** Preview-time anti-lockout on the run's cached list: throws when taking what is guarded from `userId` is not allowed. */
export async function assertAdminRemovalAllowed(client: ReviewAdminClient, scope: Scope, userId: number, what: string): Promise<void> {
  const problem = await refusal(client, scope, [userId], what, false);
  if (problem) throw problem;
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
    const problem = await refusal(client, scope, targets, what, true);
    if (problem) throw problem;
    return write();
  });
}

/** The guard a gateway's write takes (orgPeople.ts `AdminLossGuard`): `guardAdminLoss` at the scope, or straight through when `allow`. */
export function adminLossGuard(client: ReviewAdminClient, scope: Scope, what: string, allow: boolean | undefined): AdminLossGuard {
  return (userId, write) => (allow ? write() : guardAdminLoss(client, scope, [userId], what, write));
}
