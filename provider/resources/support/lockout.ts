/**
 * Anti-lockout: no change made by this provider may take ORG_ADMIN or membership from the user of
 * the API key in use, or leave an organization without an org admin, unless the resource says
 * `allowAdminRemoval: true`. Refusals name who and why.
 *
 * Two moments: at preview (diff) the rule is judged on the run's cached lists, so a plain
 * preview sends nothing; at up, every write that takes ORG_ADMIN or membership from an admin (or
 * from the key's own user) goes through `guardAdminLoss`, which decides the organization's
 * removals one at a time against a fresh members list and makes the write before the next one is
 * decided. Two resources removing the last two admins in parallel therefore cannot both pass.
 */
import type { Member } from "../../../contract/types";
import type { ReviewAdminClient } from "../../client";
import { ResourceError } from "../../failures";
import type { CheckFailure } from "./lifecycle";
import { currentUser, listedMembers, relistMembers } from "./runCache";

/** An anti-lockout refusal: the change was not made. The message names who and why. */
export class LockoutRefusal extends ResourceError {}

/**
 * Runs a plan-time anti-lockout `guard` and returns its refusal as a failure of `property`, so
 * that a check names the field. A guard that cannot read what it needs (a key without access: 403)
 * finds nothing: up makes the same read, and fails there with the worded error.
 */
export async function refusalAsFailure(property: string, guard: () => Promise<void>): Promise<CheckFailure[]> {
  try {
    await guard();
    return [];
  } catch (err) {
    if (err instanceof LockoutRefusal) return [{ property, reason: err.message }];
    return [];
  }
}

/** "ada@x.example (user 1003)", or "user 1003" when the member is not known. */
function who(members: Map<number, Member>, userId: number): string {
  const m = members.get(userId);
  return m ? `${m.email} (user ${userId})` : `user ${userId}`;
}

/**
 * The refusal, if any, of taking ORG_ADMIN or membership from `targets` in organization `orgId`
 * given its members now: the key's own user, or every remaining org admin.
 */
async function refusal(
  client: ReviewAdminClient,
  orgId: number,
  targets: readonly number[],
  members: Map<number, Member>,
  what: string,
): Promise<LockoutRefusal | undefined> {
  const me = await currentUser(client);
  if (me && targets.includes(me.id)) {
    return new LockoutRefusal(
      `${what}: refused: it would take ORG_ADMIN from ${who(members, me.id)}, the user of the API key in use, locking this program out of organization ${orgId}. Set allowAdminRemoval: true to do it anyway.`,
    );
  }
  const admins = [...members.values()].filter((m) => m.permissions.includes("ORG_ADMIN"));
  const lost = admins.filter((m) => targets.includes(m.id));
  if (lost.length > 0 && lost.length === admins.length) {
    const names = lost.map((m) => who(members, m.id)).join(", ");
    return new LockoutRefusal(
      `${what}: refused: ${names} ${lost.length === 1 ? "is the last org admin" : "are the last org admins"} of organization ${orgId}; removing them would leave nobody able to manage it. Keep one, or set allowAdminRemoval: true to do it anyway.`,
    );
  }
  return undefined;
}

/**
 * Preview-time anti-lockout on the run's cached members list: throws when taking ORG_ADMIN or
 * membership from `userId` would lock the key's user out or leave no org admin.
 */
export async function assertAdminRemovalAllowed(client: ReviewAdminClient, orgId: number, userId: number, what: string): Promise<void> {
  const problem = await refusal(client, orgId, [userId], await listedMembers(client, orgId), what);
  if (problem) throw problem;
}

// One queue per client and organization: admin removals of an organization are decided in turn.
const queues = new WeakMap<ReviewAdminClient, Map<number, Promise<unknown>>>();

function inTurn<T>(client: ReviewAdminClient, orgId: number, fn: () => Promise<T>): Promise<T> {
  let perOrg = queues.get(client);
  if (!perOrg) queues.set(client, (perOrg = new Map()));
  const turn = (perOrg.get(orgId) ?? Promise.resolve()).then(fn, fn);
  perOrg.set(
    orgId,
    turn.catch(() => undefined),
  );
  return turn;
}

/**
 * Runs `write`, which takes ORG_ADMIN or membership from `targets`, under the anti-lockout rule
 * (see the file comment). Writes that touch neither an org admin (in the run's list) nor the
 * key's own user go straight through; the others wait their turn for the organization, are
 * judged against a fresh members list, and write before the next one is judged.
 */
export async function guardAdminLoss<T>(
  client: ReviewAdminClient,
  orgId: number,
  targets: readonly number[],
  what: string,
  write: () => Promise<T>,
): Promise<T> {
  const [cached, me] = await Promise.all([listedMembers(client, orgId), currentUser(client)]);
  const risky = targets.some((id) => id === me?.id || cached.get(id)?.permissions.includes("ORG_ADMIN"));
  if (!risky) return write();
  return inTurn(client, orgId, async () => {
    const problem = await refusal(client, orgId, targets, await relistMembers(client, orgId), what);
    if (problem) throw problem;
    return write();
  });
}

/**
 * Preview-time check of a roster plan on the roster's view of everyone live: refuses a plan that
 * would leave organization `orgId` with no org admin, or take membership or ORG_ADMIN from the
 * key's own user. `admins`: the emails of every active org admin now (managed by the roster or
 * not); `losing`: the active people the plan removes or takes ORG_ADMIN from.
 */
export async function assertRosterKeepsAdmins(
  client: ReviewAdminClient,
  orgId: number,
  admins: readonly string[],
  losing: readonly { email: string; userId: number | null }[],
  what: string,
): Promise<void> {
  if (losing.length === 0) return;
  const gone = new Set(losing.map((l) => l.email));
  if (admins.length > 0 && admins.every((e) => gone.has(e))) {
    throw new LockoutRefusal(
      `${what}: refused: it would leave organization ${orgId} with no org admin (removing ${admins.join(", ")}). Keep one in the map, add one to protectedEmails, or set allowAdminRemoval: true.`,
    );
  }
  const me = await currentUser(client);
  const mine = losing.find((l) => l.userId !== null && l.userId === me?.id);
  if (mine) {
    throw new LockoutRefusal(
      `${what}: refused: it would take ORG_ADMIN from ${mine.email} (user ${mine.userId}), the user of the API key in use, locking this program out of organization ${orgId}. Set allowAdminRemoval: true to do it anyway.`,
    );
  }
}

/** Refuses to take DB_ADMIN on database `databaseId` from the key's own user (`losing`: user ids that lose it). */
export async function assertKeepsOwnDatabaseAdmin(
  client: ReviewAdminClient,
  databaseId: number,
  losing: readonly number[],
  what: string,
): Promise<void> {
  if (losing.length === 0) return;
  const me = await currentUser(client);
  if (me && losing.includes(me.id)) {
    throw new LockoutRefusal(
      `${what}: refused: it would take DB_ADMIN on database ${databaseId} from user ${me.id} (${me.email ?? me.username ?? "?"}), the user of the API key in use. Set allowAdminRemoval: true to do it anyway.`,
    );
  }
}
