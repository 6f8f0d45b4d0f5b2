/**
 * Write batching for E19: concurrent adds to the same organization with the same permission set
 * are sent as one PostOrganizationUsers call (the endpoint takes a list), and each caller gets
 * its own outcome back. The engine creates resources in parallel, so a program declaring N
 * members sends about N/BATCH_SIZE requests instead of N.
 */
import type { AddUser, Invitation, Member, OrganizationPermission } from "../api";
import type { ReviewAdminClient } from "../client";
import { normalizeEmail } from "./base";

/** Most people sent in one E19 call. */
export const BATCH_SIZE = 100;
/** How long a batch waits for company before it is sent. */
export const BATCH_WINDOW_MS = 25;

/** What E19 did for one person. */
export type AddOutcome =
  | { kind: "member"; member: Member }
  | { kind: "invited"; invitation: Invitation }
  | { kind: "invalid" };

interface Waiter {
  user: AddUser;
  resolve: (o: AddOutcome) => void;
  reject: (e: unknown) => void;
}
interface Batch {
  orgId: number;
  permissions?: OrganizationPermission[];
  waiters: Waiter[];
  timer?: NodeJS.Timeout;
}

const open = new WeakMap<ReviewAdminClient, Map<string, Batch>>();

/** Adds one person through E19, sharing the request with concurrent adds of the same kind. */
export function addUser(
  client: ReviewAdminClient,
  orgId: number,
  permissions: OrganizationPermission[] | undefined,
  user: AddUser,
): Promise<AddOutcome> {
  let batches = open.get(client);
  if (!batches) open.set(client, (batches = new Map()));
  const key = `${orgId}|${permissions ? [...permissions].sort().join(",") : "-"}`;
  let batch = batches.get(key);
  if (!batch) {
    batch = { orgId, permissions, waiters: [] };
    batches.set(key, batch);
    const b = batch;
    b.timer = setTimeout(() => flush(client, key, b), BATCH_WINDOW_MS);
  }
  return new Promise<AddOutcome>((resolve, reject) => {
    batch.waiters.push({ user, resolve, reject });
    if (batch.waiters.length >= BATCH_SIZE) {
      clearTimeout(batch.timer);
      flush(client, key, batch);
    }
  });
}

async function flush(client: ReviewAdminClient, key: string, batch: Batch): Promise<void> {
  const batches = open.get(client);
  if (batches?.get(key) === batch) batches.delete(key);
  const { waiters } = batch;
  try {
    const body = { users: waiters.map((w) => w.user), ...(batch.permissions ? { permissions: batch.permissions } : {}) };
    const result = await client.call("PostOrganizationUsers", { orgId: batch.orgId }, body);
    const members = new Map(result.users.map((m) => [normalizeEmail(m.email), m]));
    const invites = new Map(result.invites.map((i) => [normalizeEmail(i.email), i]));
    const invalid = new Set(result.invalid.map(normalizeEmail));
    for (const w of waiters) {
      const email = normalizeEmail(w.user.email);
      const member = members.get(email);
      const invitation = invites.get(email);
      if (member) w.resolve({ kind: "member", member });
      else if (invitation) w.resolve({ kind: "invited", invitation });
      else if (invalid.has(email)) w.resolve({ kind: "invalid" });
      else w.reject(new Error(`the service's answer to adding ${email} named them neither as member, invitation nor invalid`));
    }
  } catch (err) {
    for (const w of waiters) w.reject(err);
  }
}
