/**
 * Anti-lockout: no change made by this provider may take ORG_ADMIN from the user of the API key
 * in use, or leave an organization without an org admin, unless the resource says
 * `allowAdminRemoval: true`. Refusals name who and why.
 */
import type { ReviewAdminClient } from "../../client";
import { ResourceError } from "../../failures";
import { currentUser, listedMembers } from "./runCache";

/**
 * Anti-lockout: refuses to take ORG_ADMIN away from `userId` when that user is the key's own
 * user, or is the organization's last org admin. Throws an error that names who and why.
 */
export async function assertAdminRemovalAllowed(
  client: ReviewAdminClient,
  orgId: number,
  userId: number,
  what: string,
): Promise<void> {
  const [me, members] = await Promise.all([currentUser(client), listedMembers(client, orgId)]);
  const target = members.get(userId);
  const label = target ? `${target.email} (user ${userId})` : `user ${userId}`;
  if (me && me.id === userId) {
    throw new ResourceError(
      `${what}: refused: it would take ORG_ADMIN from ${label}, the user of the API key in use, locking this program out of organization ${orgId}. Set allowAdminRemoval: true to do it anyway.`,
    );
  }
  const otherAdmins = [...members.values()].filter((m) => m.id !== userId && m.permissions.includes("ORG_ADMIN"));
  if (target?.permissions.includes("ORG_ADMIN") && otherAdmins.length === 0) {
    throw new ResourceError(
      `${what}: refused: ${label} is the last org admin of organization ${orgId}; removing them would leave nobody able to manage it. Set allowAdminRemoval: true to do it anyway.`,
    );
  }
}

/**
 * Refuses a roster plan that would leave organization `orgId` with no org admin, or take
 * membership or ORG_ADMIN from the key's own user. `admins`: the emails of every active org
 * admin now (managed by the roster or not); `losing`: the active people the plan removes or
 * takes ORG_ADMIN from.
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
    throw new ResourceError(
      `${what}: refused: it would leave organization ${orgId} with no org admin (removing ${admins.join(", ")}). Keep one in the map, add one to protectedEmails, or set allowAdminRemoval: true.`,
    );
  }
  for (const { userId } of losing) if (userId) await assertAdminRemovalAllowed(client, orgId, userId, what);
}

/** Refuses to take DB_ADMIN on database `databaseId` from the key's own user (`losing`: user ids that lose it). */
export async function assertKeepsOwnDatabaseAdmin(client: ReviewAdminClient, databaseId: number, losing: readonly number[], what: string): Promise<void> {
  if (losing.length === 0) return;
  const me = await currentUser(client);
  if (me && losing.includes(me.id)) {
    throw new ResourceError(
      `${what}: refused: it would take DB_ADMIN on database ${databaseId} from user ${me.id} (${me.email ?? me.username ?? "?"}), the user of the API key in use. Set allowAdminRemoval: true to do it anyway.`,
    );
  }
}
