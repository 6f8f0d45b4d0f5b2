/**
 * Write batching for E19: concurrent adds to the same organization with the same permission set
 * are sent as one PostOrganizationUsers call (the endpoint takes a list), and each caller gets
 * its own outcome back. The engine creates resources in parallel, so a program declaring N
 * members sends about N/BATCH_SIZE requests instead of N.
 */
import type { AddUser, Invitation, Member, OrganizationPermission } from "../../../contract/types";
import type { ReviewAdminClient } from "../../client";
import { normalizeEmail } from "../../normalize";

/** Most people sent in one E19 call. */
export const BATCH_SIZE = 100;
/**
 * A batch is sent once no add has joined it for this long. The engine's creates reach the
 * provider in clumps spread over seconds, so a fixed short window sent many small batches
 * (121 calls for 2,000 people in the benchmark); each add waits far longer than this in the
 * 25 req/s limiter anyway.
 */
export const BATCH_WINDOW_MS = 200;
/** ...but no add waits more than this for its batch to be sent. */
export const BATCH_MAX_WAIT_MS = 1000;

/** What E19 did for one person. */
export type AddOutcome = { kind: "member"; member: Member } | { kind: "invited"; invitation: Invitation } | { kind: "invalid" };

interface Waiter {
  user: AddUser;
  resolve: (o: AddOutcome) => void;
  reject: (e: unknown) => void;
}
interface Batch {
  orgId: number;
  permissions?: OrganizationPermission[];
  waiters: Waiter[];
  openedAt: number;
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
    batch = { orgId, permissions, waiters: [], openedAt: Date.now() };
    batches.set(key, batch);
  }
  const b = batch;
  return new Promise<AddOutcome>((resolve, reject) => {
    b.waiters.push({ user, resolve, reject });
    clearTimeout(b.timer);
    if (b.waiters.length >= BATCH_SIZE) {
      flush(client, key, b);
    } else {
      const wait = Math.max(0, Math.min(BATCH_WINDOW_MS, b.openedAt + BATCH_MAX_WAIT_MS - Date.now()));
      b.timer = setTimeout(() => flush(client, key, b), wait);
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
