/**
 * Reads shared by every resource in one plugin process (one Pulumi run): an organization's
 * members and invitations and a database's users are each listed once, in pages of 200, and
 * kept up to date by the provider's own writes. They live as long as the plugin process,
 * which serves one run.
 */
import type { DatabaseUser, Invitation, Member, User } from "../../../contract/types";
import type { ReviewAdminClient } from "../../client";
import { isStatus } from "../../failures";
import { normalizeEmail } from "../../normalize";

interface RunCache {
  members: Map<number, Promise<Map<number, Member>>>;
  invitations: Map<number, Promise<Map<string, Invitation>>>;
  databaseUsers: Map<number, Promise<Map<number, DatabaseUser>>>;
  currentUser?: Promise<User | undefined>;
}

// Keyed by client: getClient returns one client per (base URL, key), so two keys never share.
const caches = new WeakMap<ReviewAdminClient, RunCache>();

function cacheOf(client: ReviewAdminClient): RunCache {
  let c = caches.get(client);
  if (!c) caches.set(client, (c = { members: new Map(), invitations: new Map(), databaseUsers: new Map() }));
  return c;
}

function memo<K, V>(map: Map<K, Promise<V>>, key: K, load: () => Promise<V>): Promise<V> {
  let p = map.get(key);
  if (!p) {
    p = load();
    map.set(key, p);
    // A failed read is not remembered: the next resource tries again.
    p.catch(() => map.delete(key));
  }
  return p;
}

async function listMembers(client: ReviewAdminClient, orgId: number): Promise<Map<number, Member>> {
  const list = await client.listAll("GetOrganizationUsers", { orgId });
  return new Map(list.map((m) => [m.id, m]));
}

/** An organization's members by user id, listed once per run. */
export function listedMembers(client: ReviewAdminClient, orgId: number): Promise<Map<number, Member>> {
  return memo(cacheOf(client).members, orgId, () => listMembers(client, orgId));
}

/** Lists an organization's members again, bypassing the run's list, and keeps the fresh list for the rest of the run. */
export async function relistMembers(client: ReviewAdminClient, orgId: number): Promise<Map<number, Member>> {
  const fresh = await listMembers(client, orgId);
  cacheOf(client).members.set(orgId, Promise.resolve(fresh));
  return fresh;
}

/** The member with this email (case-insensitive), if any. */
export async function memberByEmail(client: ReviewAdminClient, orgId: number, email: string): Promise<Member | undefined> {
  const wanted = normalizeEmail(email);
  for (const m of (await listedMembers(client, orgId)).values()) if (normalizeEmail(m.email) === wanted) return m;
  return undefined;
}

/** Records a member the provider just wrote, so later reads in the run see it without a request. */
export async function rememberMember(client: ReviewAdminClient, orgId: number, member: Member): Promise<void> {
  const map = cacheOf(client).members.get(orgId);
  if (map) (await map.catch(() => undefined))?.set(member.id, member);
}

/** Records a member the provider just removed. */
export async function forgetMember(client: ReviewAdminClient, orgId: number, userId: number): Promise<void> {
  const map = cacheOf(client).members.get(orgId);
  if (map) (await map.catch(() => undefined))?.delete(userId);
}

/** An organization's pending and expired invitations by lower-cased email, listed once per run. */
export function listedInvitations(client: ReviewAdminClient, orgId: number): Promise<Map<string, Invitation>> {
  return memo(cacheOf(client).invitations, orgId, async () => {
    const data = await client.call("GetOrganizationInvitations", { orgId });
    return new Map(data.invitations.map((i) => [normalizeEmail(i.email), i]));
  });
}

/** Records an invitation the provider just sent or re-sent. */
export async function rememberInvitation(client: ReviewAdminClient, orgId: number, inv: Invitation): Promise<void> {
  const map = cacheOf(client).invitations.get(orgId);
  if (map) (await map.catch(() => undefined))?.set(normalizeEmail(inv.email), inv);
}

/** Records an invitation the provider just deleted (or that was accepted). */
export async function forgetInvitation(client: ReviewAdminClient, orgId: number, email: string): Promise<void> {
  const map = cacheOf(client).invitations.get(orgId);
  if (map) (await map.catch(() => undefined))?.delete(normalizeEmail(email));
}

/** A database's users with permissions by user id, listed once per run. */
export function listedDatabaseUsers(client: ReviewAdminClient, databaseId: number): Promise<Map<number, DatabaseUser>> {
  return memo(cacheOf(client).databaseUsers, databaseId, async () => {
    const list = await client.listAll("GetDatabaseUsers", { databaseId });
    return new Map(list.map((u) => [u.user.id, u]));
  });
}

/** Records a database user the provider just wrote (or removed, with `undefined`). */
export async function rememberDatabaseUser(
  client: ReviewAdminClient,
  databaseId: number,
  userId: number,
  value: DatabaseUser | undefined,
): Promise<void> {
  const map = cacheOf(client).databaseUsers.get(databaseId);
  const resolved = map ? await map.catch(() => undefined) : undefined;
  if (!resolved) return;
  if (value) resolved.set(userId, value);
  else resolved.delete(userId);
}

/** The user behind the API key, or undefined for an organization-level key (no user of its own). */
export function currentUser(client: ReviewAdminClient): Promise<User | undefined> {
  const c = cacheOf(client);
  c.currentUser ??= client.call("GetCurrentUser", {}).catch((err) => {
    if (isStatus(err, 404) || isStatus(err, 403)) return undefined;
    c.currentUser = undefined;
    throw err;
  });
  return c.currentUser;
}
