/**
 * The gateway to an organization's people (OrgMember, Invitation, the member-field resources, the
 * OrganizationMembers roster, EthicalWall, anti-lockout): it owns the run's lists of members and
 * invitations (each listed once per run, in pages of 200, and kept up to date by every write made
 * here), the writes themselves, and E19's batching. Nothing else writes a member or an invitation.
 */
import { takesAdmin } from "../../contract/grants";
import type { AddUser, Invitation, Member, OrganizationPermission } from "../../contract/types";
import type { ReviewAdminClient } from "../client";
import { ignore404, ResourceError } from "../failures";
import { normalizeEmail, normalizeIdentifiers, sameIdentifiers, sameSet, sortedSet, type Identifier } from "../normalize";
import { definedOnly, mapLimit } from "../util";
import { hasPassed } from "./clock";
import type { RosterWrite } from "./plan";
import { amend, currentUser, memo, perClient } from "./runCache";
import { personText } from "../../contract/people";
import { readInChains, splitPoints } from "./splitList";

// ---------------------------------------------------------------------------------------------
// The run's lists

const lists = perClient(() => ({
  members: new Map<number, Promise<Map<number, Member>>>(),
  invitations: new Map<number, Promise<Map<string, Invitation>>>(),
}));

/** Lists the members; `knownIds` (user ids a state holds) split a long list into chains read at once (splitList.ts). */
async function listMembers(client: ReviewAdminClient, orgId: number, knownIds: readonly number[] = []): Promise<Map<number, Member>> {
  const list = await readInChains(
    splitPoints(knownIds),
    (m: Member) => m.id,
    (after) => client.paginate("GetOrganizationUsers", after === undefined ? { orgId } : { orgId, after }),
  );
  return new Map(list.map((m) => [m.id, m]));
}

/** An organization's members by user id, listed once per run; `knownIds` as in listMembers. */
export function listedMembers(client: ReviewAdminClient, orgId: number, knownIds?: readonly number[]): Promise<Map<number, Member>> {
  return memo(lists(client).members, orgId, () => listMembers(client, orgId, knownIds));
}

/** Lists an organization's members again, bypassing the run's list, and keeps the fresh list for the rest of the run. */
export async function relistMembers(client: ReviewAdminClient, orgId: number): Promise<Map<number, Member>> {
  const fresh = await listMembers(client, orgId);
  lists(client).members.set(orgId, Promise.resolve(fresh));
  return fresh;
}

// Who acted, by organization and user id, named once per run (actorText).
const actors = perClient(() => new Map<string, Promise<string>>());

/**
 * The actor of an organization's activity event, named as the review packet names people
 * ("Grace Hopper <grace@northwind.example> (user 1002)", contract/people.ts): from the run's list
 * of the organization's members when the run has read it, else one read of the member (E21), else
 * the key's own user; "user 1002" when none can say. Once per actor per run; never throws.
 */
export function actorText(client: ReviewAdminClient, orgId: number, userId: number): Promise<string> {
  return memo(actors(client), `${orgId}/${userId}`, async () => {
    const listed = await lists(client)
      .members.get(orgId)
      ?.catch(() => undefined);
    const member =
      listed?.get(userId) ??
      (await client.call("GetOrganizationUser", { orgId, userId }).catch(() => undefined)) ??
      (await currentUser(client).catch(() => undefined));
    return personText(member?.id === userId ? { ...member, userId } : { userId });
  });
}

/** The member with this email (case-insensitive), if any. */
export async function memberByEmail(client: ReviewAdminClient, orgId: number, email: string): Promise<Member | undefined> {
  const wanted = normalizeEmail(email);
  for (const m of (await listedMembers(client, orgId)).values()) if (normalizeEmail(m.email) === wanted) return m;
  return undefined;
}

/**
 * True when a stored invitation has lapsed: the state says expired, or it is still waiting
 * (`waiting`: the state's word for it) and its expiration has passed by the service's clock.
 * The one rule OrgMember and Invitation re-send by.
 */
export function invitationLapsed(
  client: ReviewAdminClient,
  stored: { status?: string; expiration?: string | null },
  waiting: string,
): Promise<boolean> {
  if (stored.status === "expired") return Promise.resolve(true);
  if (stored.status !== waiting || !stored.expiration) return Promise.resolve(false);
  return hasPassed(client, Date.parse(stored.expiration));
}

/** An organization's pending and expired invitations by lower-cased email, listed once per run. */
export function listedInvitations(client: ReviewAdminClient, orgId: number): Promise<Map<string, Invitation>> {
  return memo(lists(client).invitations, orgId, async () => {
    const data = await client.call("GetOrganizationInvitations", { orgId });
    return new Map(data.invitations.map((i) => [normalizeEmail(i.email), i]));
  });
}

const rememberMember = (client: ReviewAdminClient, orgId: number, member: Member) =>
  amend(lists(client).members, orgId, (m) => m.set(member.id, member));
const forgetMember = (client: ReviewAdminClient, orgId: number, userId: number) =>
  amend(lists(client).members, orgId, (m) => m.delete(userId));
const rememberInvitation = (client: ReviewAdminClient, orgId: number, inv: Invitation) =>
  amend(lists(client).invitations, orgId, (m) => m.set(normalizeEmail(inv.email), inv));
const forgetInvitation = (client: ReviewAdminClient, orgId: number, email: string) =>
  amend(lists(client).invitations, orgId, (m) => m.delete(normalizeEmail(email)));

// ---------------------------------------------------------------------------------------------
// People

/** Where a person stands: a member, or a pending or expired invitation. */
export type Presence = { member: Member } | { invitation: Invitation };

/** "the existing member ada@x.example (user 1003)" or "the pending invitation of ada@x.example", for messages. */
export function describePresence(p: Presence): string {
  if ("member" in p) return `the existing member ${p.member.email} (user ${p.member.id})`;
  return `the ${p.invitation.expired ? "expired" : "pending"} invitation of ${p.invitation.email}`;
}

/** A person as the OrganizationMembers roster sees them live (its state holds these). */
export interface LivePerson {
  status: "active" | "invited" | "expired";
  userId: number | null;
  firstName: string | null;
  lastName: string | null;
  permissions: OrganizationPermission[];
  userIdentifiers: Identifier[];
}

/** A member or invitation as the OrganizationMembers roster sees and stores it. */
export function livePerson(x: Presence): LivePerson {
  if ("member" in x) {
    const m = x.member;
    return {
      status: "active",
      userId: m.id,
      firstName: m.firstName ?? null,
      lastName: m.lastName ?? null,
      permissions: sortedSet(m.permissions),
      userIdentifiers: normalizeIdentifiers(m.userIdentifiers),
    };
  }
  const i = x.invitation;
  return {
    status: i.expired ? "expired" : "invited",
    userId: null,
    firstName: i.firstName ?? null,
    lastName: i.lastName ?? null,
    permissions: sortedSet(i.organizationPermissions),
    userIdentifiers: [],
  };
}

/** Everyone in the organization by lower-cased email: a member wins over an invitation of the same email. */
export async function liveRoster(client: ReviewAdminClient, orgId: number, knownIds?: readonly number[]): Promise<Map<string, Presence>> {
  const [members, invitations] = await Promise.all([listedMembers(client, orgId, knownIds), listedInvitations(client, orgId)]);
  const out = new Map<string, Presence>();
  for (const inv of invitations.values()) out.set(normalizeEmail(inv.email), { invitation: inv });
  for (const m of members.values()) out.set(normalizeEmail(m.email), { member: m });
  return out;
}

/** What inviting a person needs, and the fields a program manages once they are a member (left out: not managed). */
export interface PersonInputs {
  organizationId: number;
  email: string;
  firstName?: string;
  lastName?: string;
  permissions?: OrganizationPermission[];
  userIdentifiers?: Identifier[];
  resendWhenExpired?: boolean;
}

/** The member with this user id, else the one with this email (case-insensitive); undefined when neither is a member. */
export async function findMember(
  client: ReviewAdminClient,
  orgId: number,
  by: { userId?: number | null; email?: string },
): Promise<Member | undefined> {
  const byId = by.userId ? (await listedMembers(client, orgId)).get(by.userId) : undefined;
  return byId ?? (by.email ? memberByEmail(client, orgId, by.email) : undefined);
}

/** Finds the person as a member (by user id, then email) or as a pending or expired invitation. */
export async function findPerson(
  client: ReviewAdminClient,
  orgId: number,
  email: string,
  userId?: number | null,
): Promise<Presence | undefined> {
  const member = await findMember(client, orgId, { userId, email });
  if (member) return { member };
  const invitation = (await listedInvitations(client, orgId)).get(normalizeEmail(email));
  return invitation ? { invitation } : undefined;
}

/** Adds an existing platform user as a member, or invites a new email (E19, batched with concurrent adds). */
export async function invite(client: ReviewAdminClient, inputs: PersonInputs, action: string): Promise<Presence> {
  const outcome = await addUser(client, inputs.organizationId, inputs.permissions, {
    email: inputs.email,
    firstName: inputs.firstName ?? inputs.email.split("@")[0] ?? inputs.email,
    lastName: inputs.lastName ?? "",
  });
  if (outcome.kind === "invalid") {
    throw new ResourceError(`${action}: the service refused the email address '${inputs.email}' as invalid`);
  }
  if (outcome.kind === "member") {
    await rememberMember(client, inputs.organizationId, outcome.member);
    return { member: outcome.member };
  }
  await rememberInvitation(client, inputs.organizationId, outcome.invitation);
  return { invitation: outcome.invitation };
}

/** Re-sends an invitation (E15), resetting its expiration. */
export async function resend(client: ReviewAdminClient, orgId: number, email: string): Promise<Invitation> {
  const resent = await client.call("PostOrganizationInvitationResend", { orgId }, { email });
  await rememberInvitation(client, orgId, resent);
  return resent;
}

/** Deletes a pending or expired invitation (E13); one already gone counts as done. */
export async function deleteInvitation(client: ReviewAdminClient, orgId: number, email: string): Promise<void> {
  await client.call("DeleteOrganizationInvitation", { orgId }, { email }).catch(ignore404);
  await forgetInvitation(client, orgId, email);
}

/** Removes a member (E20); one already gone counts as done. */
async function removeMember(client: ReviewAdminClient, orgId: number, userId: number): Promise<void> {
  await client.call("DeleteOrganizationUser", { orgId, userId }).catch(ignore404);
  await forgetMember(client, orgId, userId);
}

/** Sets a member's permissions and/or identifiers (E22); nothing is sent for an empty change. */
async function patchMember(
  client: ReviewAdminClient,
  orgId: number,
  member: Member,
  body: { organizationPermissions?: OrganizationPermission[]; userIdentifiers?: { abbreviation: string; label: string }[] },
): Promise<Member> {
  if (body.organizationPermissions === undefined && body.userIdentifiers === undefined) return member;
  const updated = await client.call("PatchOrganizationUser", { orgId, userId: member.id }, body);
  await rememberMember(client, orgId, updated);
  return updated;
}

/**
 * Runs `write`, which takes ORG_ADMIN or the membership from the member `userId`, as anti-lockout
 * allows (resources/support/lockout.ts `adminLossGuard`: in turn and judged on a fresh list, or
 * straight through when the resource allows admin removal). The gateway says when a write needs
 * it; the rule and its queue stay with the resources, which also judge previews by it.
 */
export type AdminLossGuard = <T>(userId: number, write: () => Promise<T>) => Promise<T>;

/** A member's fields a program manages: one left out is not managed (never read or written). */
export interface MemberFields {
  permissions?: OrganizationPermission[];
  identifiers?: Identifier[];
}

/**
 * Writes the fields of `want` that differ from the member's (E22: one request, none when all
 * agree) and returns the member as written; a write that takes ORG_ADMIN goes through `guard`.
 */
export async function writeMember(
  client: ReviewAdminClient,
  orgId: number,
  member: Member,
  want: MemberFields,
  guard: AdminLossGuard,
): Promise<Member> {
  const permissions = want.permissions && !sameSet(member.permissions, want.permissions) ? want.permissions : undefined;
  const identifiers = want.identifiers && !sameIdentifiers(member.userIdentifiers, want.identifiers) ? want.identifiers : undefined;
  const write = () =>
    patchMember(client, orgId, member, definedOnly({ organizationPermissions: permissions, userIdentifiers: identifiers }));
  return permissions && takesAdmin("organization", member.permissions, permissions) ? guard(member.id, write) : write();
}

/** Removes the person: the member (E20, through `guard`) or their pending or expired invitation (E13); nobody there is done. */
export async function removePerson(
  client: ReviewAdminClient,
  orgId: number,
  person: { email: string; userId?: number | null },
  guard: AdminLossGuard,
): Promise<void> {
  const now = await findPerson(client, orgId, person.email, person.userId);
  if (!now) return;
  if ("invitation" in now) return deleteInvitation(client, orgId, now.invitation.email);
  const userId = now.member.id;
  await guard(userId, () => removeMember(client, orgId, userId));
}

/**
 * An invitation exists: re-invite with new permissions when they differ (the API cannot edit an
 * invitation), re-send it when expired (unless resendWhenExpired is false), else keep it.
 */
async function reconcileInvitation(client: ReviewAdminClient, inputs: PersonInputs, inv: Invitation, action: string): Promise<Presence> {
  const orgId = inputs.organizationId;
  if (inputs.permissions && !sameSet(inv.organizationPermissions, inputs.permissions)) {
    await deleteInvitation(client, orgId, inv.email);
    return invite(client, inputs, action);
  }
  if (inv.expired && inputs.resendWhenExpired !== false) return { invitation: await resend(client, orgId, inv.email) };
  return { invitation: inv };
}

/**
 * Brings a person to being present: invites or adds someone absent, reconciles a pending
 * invitation, keeps a member as they are. Returns what was found before (undefined: nobody) and
 * what is there now.
 */
export async function ensurePresent(
  client: ReviewAdminClient,
  inputs: PersonInputs,
  userId: number | null | undefined,
  action: string,
): Promise<{ found: Presence | undefined; now: Presence }> {
  const found = await findPerson(client, inputs.organizationId, inputs.email, userId);
  if (!found) return { found, now: await invite(client, inputs, action) };
  if ("member" in found) return { found, now: found };
  return { found, now: await reconcileInvitation(client, inputs, found.invitation, action) };
}

/**
 * Brings a person in line with the inputs: present (`ensurePresent`) and, once a member, the
 * managed fields written (`writeMember`, through `guard`). Returns what was found before and what is there now.
 */
export async function bringInLine(
  client: ReviewAdminClient,
  inputs: PersonInputs,
  userId: number | null,
  action: string,
  guard: AdminLossGuard,
): Promise<{ found: Presence | undefined; now: Presence }> {
  const { found, now } = await ensurePresent(client, inputs, userId, action);
  if (!("member" in now)) return { found, now };
  const want = { permissions: inputs.permissions, identifiers: inputs.userIdentifiers };
  return { found, now: { member: await writeMember(client, inputs.organizationId, now.member, want, guard) } };
}

/** A person an OrganizationMembers roster declares: what inviting them needs and the fields it manages (left out: not managed). */
export type RosterPerson = Pick<PersonInputs, "firstName" | "lastName" | "permissions" | "userIdentifiers">;

// The roster's writes run inside its own anti-lockout guard (`guarded`), which judged them all.
const alreadyGuarded: AdminLossGuard = (_userId, write) => write();

/**
 * An OrganizationMembers roster's writes: adds first, all at once (the batcher sends one E19 per
 * permission set), then, guarded, changes (a pending invitation reconciled, a member's differing
 * fields written) and removals (the member, or the pending invitation), eight at a time.
 */
export async function writeOrganizationRoster(
  step: RosterWrite<{ members: Record<string, RosterPerson> }, Map<string, Presence>>,
): Promise<void> {
  const { client, action, plan, now, listed, wrote } = step;
  const orgId = step.scope.id;
  const person = (email: string): PersonInputs => ({ organizationId: orgId, email, ...now.members[email] });
  const fields = (email: string): MemberFields => ({
    permissions: now.members[email]!.permissions,
    identifiers: now.members[email]!.userIdentifiers,
  });
  const each = (keys: readonly string[], limit: number, write: (email: string) => Promise<unknown>) =>
    mapLimit(keys, limit, async (email) => {
      await write(email);
      wrote();
    });
  const add = async (email: string) => {
    const got = await invite(client, person(email), action);
    if ("member" in got) await writeMember(client, orgId, got.member, { identifiers: fields(email).identifiers }, alreadyGuarded);
  };
  const change = (email: string) => {
    const x = listed.get(email)!;
    if ("invitation" in x) return reconcileInvitation(client, person(email), x.invitation, action);
    return writeMember(client, orgId, x.member, fields(email), alreadyGuarded);
  };
  const remove = (email: string) => {
    const x = listed.get(email)!;
    return "member" in x ? removeMember(client, orgId, x.member.id) : deleteInvitation(client, orgId, x.invitation.email);
  };
  await each(plan.add, Infinity, add);
  await step.guarded(async () => {
    await each(plan.change, 8, change);
    await each(plan.remove, 8, remove);
  });
}

// ---------------------------------------------------------------------------------------------
// E19's batching: concurrent adds to the same organization with the same permission set are sent
// as one PostOrganizationUsers call (the endpoint takes a list), and each caller gets its own
// outcome back. The engine creates resources in parallel, so a program declaring N members sends
// about N/BATCH_SIZE requests instead of N.

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
type AddOutcome = { kind: "member"; member: Member } | { kind: "invited"; invitation: Invitation } | { kind: "invalid" };

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

const openBatches = perClient(() => new Map<string, Batch>());

/** Adds one person through E19, sharing the request with concurrent adds of the same kind. */
function addUser(
  client: ReviewAdminClient,
  orgId: number,
  permissions: OrganizationPermission[] | undefined,
  user: AddUser,
): Promise<AddOutcome> {
  const batches = openBatches(client);
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
      void flush(client, key, b);
    } else {
      const wait = Math.max(0, Math.min(BATCH_WINDOW_MS, b.openedAt + BATCH_MAX_WAIT_MS - Date.now()));
      b.timer = setTimeout(() => void flush(client, key, b), wait);
    }
  });
}

async function flush(client: ReviewAdminClient, key: string, batch: Batch): Promise<void> {
  const batches = openBatches(client);
  if (batches.get(key) === batch) batches.delete(key);
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
