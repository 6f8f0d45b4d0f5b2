/**
 * OrgMember: one person's membership of an organization, by email.
 *
 * Create goes through E19 (batched): an existing platform user becomes a member, anyone else is
 * invited. A person who is already a member, or already invited, is adopted instead. `status`
 * says which state the person is in: `active`, `invited` or `expired`. A pending invitation
 * counts as present; an expired one shows as a change and is re-sent (E15) on the next up.
 * `permissions` and `userIdentifiers` are managed only when given.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { OrganizationPermission, uniqueArray, type Member } from "../../contract";
import type { ReviewAdminClient } from "../client";
import { currentClient } from "../settings";
import {
  SCHEMA_VERSION, checkWith, containsUnknown, definedOnly, describeFailure, diffFields, isStatus, normalizeEmail, sortedSet, stripProvider,
  type ResourceImpl,
} from "./base";
import { ReviewAdminResource } from "./resource";
import { IdentifierList, normalizeIdentifiers } from "./userIdentifiers";
import { deleteInvitation, findLive, invite, reconcileInvitation, removeMember, type Live } from "./people";
import { assertAdminRemovalAllowed, rememberMember } from "./shared";

/** Where a person stands in an organization. */
export type MemberStatus = "active" | "invited" | "expired";

/** Inputs of an OrgMember. */
export interface OrgMemberArgs {
  /** The organization. Changing it replaces the resource. */
  organizationId: pulumi.Input<number>;
  /** The person's email; compared case-insensitively and stored lower-cased. Changing it replaces. */
  email: pulumi.Input<string>;
  /** Used when inviting someone new; the API cannot change a member's name afterwards. Defaults to the email's local part. */
  firstName?: pulumi.Input<string>;
  /** Used when inviting someone new. Defaults to "". */
  lastName?: pulumi.Input<string>;
  /** Organization permissions. Left out: not managed (never read or changed). */
  permissions?: pulumi.Input<pulumi.Input<OrganizationPermission>[]>;
  /** User identifiers. Left out: not managed. Applied once the person is a member. */
  userIdentifiers?: pulumi.Input<pulumi.Input<{ abbreviation: pulumi.Input<string>; label: pulumi.Input<string> }>[]>;
  /** Re-send an expired invitation on the next up. Default true. */
  resendWhenExpired?: pulumi.Input<boolean>;
  /** Allow removing ORG_ADMIN from the key's own user or the last org admin. Default false. */
  allowAdminRemoval?: pulumi.Input<boolean>;
}

const Inputs = z.strictObject({
  organizationId: z.number().int().positive({ message: "must be a positive integer organization id" }),
  email: z.string().trim().toLowerCase().pipe(z.email({ message: "must be an email address" })),
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  permissions: uniqueArray(OrganizationPermission).transform((a) => sortedSet(a)!).optional(),
  userIdentifiers: IdentifierList.optional(),
  resendWhenExpired: z.boolean().optional(),
  allowAdminRemoval: z.boolean().optional(),
});
type Inputs = z.infer<typeof Inputs>;

/** What an OrgMember stores: its inputs, the live state, and which fields it manages. */
interface State extends Inputs {
  status: MemberStatus;
  userId: number | null;
  invitationExpiration: string | null;
  adopted: boolean;
  /** Live permissions (of the member, or of the invitation). */
  permissions: OrganizationPermission[];
  /** Live identifiers (empty until the person is a member). */
  userIdentifiers: { abbreviation: string; label: string }[];
  managed: ("permissions" | "userIdentifiers")[];
  schemaVersion: number;
}

function stateFrom(inputs: Inputs, live: NonNullable<Live>, adopted: boolean): State {
  const managed: State["managed"] = [];
  if (inputs.permissions !== undefined) managed.push("permissions");
  if (inputs.userIdentifiers !== undefined) managed.push("userIdentifiers");
  const base = {
    organizationId: inputs.organizationId,
    email: normalizeEmail(inputs.email),
    firstName: inputs.firstName,
    lastName: inputs.lastName,
    resendWhenExpired: inputs.resendWhenExpired,
    allowAdminRemoval: inputs.allowAdminRemoval,
    adopted,
    managed,
    schemaVersion: SCHEMA_VERSION,
  };
  if ("member" in live) {
    return definedOnly({
      ...base,
      status: "active",
      userId: live.member.id,
      invitationExpiration: null,
      permissions: sortedSet(live.member.permissions)!,
      userIdentifiers: normalizeIdentifiers(live.member.userIdentifiers),
    });
  }
  return definedOnly({
    ...base,
    status: live.invitation.expired ? "expired" : "invited",
    userId: null,
    invitationExpiration: live.invitation.expiration,
    permissions: sortedSet(live.invitation.organizationPermissions)!,
    userIdentifiers: [],
  });
}

/** The inputs a state stands for: managed fields only, so a refresh rewrites them to what is live. */
function inputsOf(state: State): Inputs {
  const managed = new Set(state.managed ?? []);
  return definedOnly({
    organizationId: state.organizationId,
    email: state.email,
    firstName: state.firstName,
    lastName: state.lastName,
    permissions: managed.has("permissions") ? state.permissions : undefined,
    userIdentifiers: managed.has("userIdentifiers") ? state.userIdentifiers : undefined,
    resendWhenExpired: state.resendWhenExpired,
    allowAdminRemoval: state.allowAdminRemoval,
  });
}

function isExpired(state: State): boolean {
  if (state.status === "expired") return true;
  return state.status === "invited" && !!state.invitationExpiration && Date.parse(state.invitationExpiration) <= Date.now();
}

function label(s: { email: string; organizationId: number }) {
  return `OrgMember ${s.email} in organization ${s.organizationId}`;
}

const forbiddenHint = "the API key needs org admin on this organization";

/** Brings a live member in line with the managed fields; returns the member as it is afterwards. */
async function applyToMember(client: ReviewAdminClient, inputs: Inputs, member: Member, action: string): Promise<Member> {
  const body: { organizationPermissions?: OrganizationPermission[]; userIdentifiers?: { abbreviation: string; label: string }[] } = {};
  if (inputs.permissions && JSON.stringify(sortedSet(member.permissions)) !== JSON.stringify(inputs.permissions)) {
    if (member.permissions.includes("ORG_ADMIN") && !inputs.permissions.includes("ORG_ADMIN") && !inputs.allowAdminRemoval) {
      await assertAdminRemovalAllowed(client, inputs.organizationId, member.id, action);
    }
    body.organizationPermissions = inputs.permissions;
  }
  if (inputs.userIdentifiers && JSON.stringify(normalizeIdentifiers(member.userIdentifiers)) !== JSON.stringify(inputs.userIdentifiers)) {
    body.userIdentifiers = inputs.userIdentifiers;
  }
  if (Object.keys(body).length === 0) return member;
  const updated = await client.call("PatchOrganizationUser", { orgId: inputs.organizationId, userId: member.id }, body);
  await rememberMember(client, inputs.organizationId, updated);
  return updated;
}

/**
 * Brings the person in line with the inputs: invites or adds someone absent, reconciles a
 * pending invitation, and applies the managed fields to a member (once).
 */
async function converge(client: ReviewAdminClient, inputs: Inputs, userId: number | null | undefined, action: string) {
  const found = await findLive(client, inputs.organizationId, inputs.email, userId);
  let live: NonNullable<Live> = !found
    ? await invite(client, inputs, action)
    : "member" in found
      ? found
      : await reconcileInvitation(client, inputs, found.invitation, action);
  if ("member" in live) live = { member: await applyToMember(client, inputs, live.member, action) };
  return { found, live };
}

/** The OrgMember implementation run by the plugin. */
export const orgMemberImpl: ResourceImpl = {
  async check(_olds, news) {
    return checkWith(Inputs, news);
  },

  async diff(_id, olds: State, news: Inputs) {
    const result = diffFields(olds, news, {
      replaceOn: ["organizationId", "email"],
      update: ["permissions", "userIdentifiers", "resendWhenExpired", "allowAdminRemoval"],
      normalize: (field, v) => (field === "email" && typeof v === "string" ? normalizeEmail(v) : v),
    });
    const resend = isExpired(olds) && news.resendWhenExpired !== false;
    const changes = result.changes || resend;
    // Anti-lockout at preview: only when the change takes ORG_ADMIN away, so a plain preview sends nothing.
    // Permissions not known yet (the preview placeholder, for the list or an item) are not judged:
    // the placeholder string "lacks" ORG_ADMIN, so they used to be refused; applyToMember checks
    // again with the real value at up.
    if (
      !result.replaces?.length && olds.status === "active" && olds.userId && Array.isArray(news.permissions) && !containsUnknown(news.permissions) &&
      !news.allowAdminRemoval
    ) {
      if (olds.permissions?.includes("ORG_ADMIN") && !news.permissions.includes("ORG_ADMIN")) {
        await assertAdminRemovalAllowed(currentClient(), olds.organizationId, olds.userId, `updating ${label(olds)}`);
      }
    }
    return { ...result, changes };
  },

  async create(raw) {
    const inputs = stripProvider(raw) as Inputs;
    const action = `creating ${label(inputs)}`;
    const client = currentClient();
    try {
      const { found, live } = await converge(client, inputs, undefined, action);
      const state = stateFrom(inputs, live, !!found);
      return { id: `${inputs.organizationId}/${inputs.email}`, outs: state };
    } catch (err) {
      throw describeFailure(action, err, { forbidden: forbiddenHint, notFound: "is the organization id right?" });
    }
  },

  async read(id, props: State) {
    const client = currentClient();
    try {
      const live = await findLive(client, props.organizationId, props.email, props.userId);
      if (!live) return {};
      const state = stateFrom(inputsOf(props), live, props.adopted);
      return { id, props: state, inputs: inputsOf(state) };
    } catch (err) {
      if (isStatus(err, 404)) return {};
      throw describeFailure(`reading ${label(props)}`, err, { forbidden: forbiddenHint });
    }
  },

  async update(_id, olds: State, raw) {
    const inputs = stripProvider(raw) as Inputs;
    const action = `updating ${label(inputs)}`;
    const client = currentClient();
    try {
      const { live } = await converge(client, inputs, olds.userId, action);
      return { outs: stateFrom(inputs, live, olds.adopted) };
    } catch (err) {
      throw describeFailure(action, err, { forbidden: forbiddenHint });
    }
  },

  async delete(_id, props: State) {
    const action = `deleting ${label(props)}`;
    const client = currentClient();
    try {
      const live = await findLive(client, props.organizationId, props.email, props.userId);
      if (!live) return;
      if ("member" in live) {
        if (!props.allowAdminRemoval) await assertAdminRemovalAllowed(client, props.organizationId, live.member.id, action);
        await removeMember(client, props.organizationId, live.member.id);
      } else {
        await deleteInvitation(client, props.organizationId, live.invitation.email);
      }
    } catch (err) {
      throw describeFailure(action, err, { forbidden: forbiddenHint });
    }
  },
};

/** A person's membership of an organization, managed by email. See the README for semantics. */
export class OrgMember extends ReviewAdminResource {
  declare readonly organizationId: pulumi.Output<number>;
  declare readonly email: pulumi.Output<string>;
  declare readonly firstName: pulumi.Output<string | undefined>;
  declare readonly lastName: pulumi.Output<string | undefined>;
  /** Live organization permissions (of the member, or of the pending invitation). */
  declare readonly permissions: pulumi.Output<OrganizationPermission[]>;
  /** Live user identifiers (empty while invited). */
  declare readonly userIdentifiers: pulumi.Output<{ abbreviation: string; label: string }[]>;
  /** `active`, `invited` or `expired`. */
  declare readonly status: pulumi.Output<MemberStatus>;
  /** The platform user id; null until the invitation is accepted. */
  declare readonly userId: pulumi.Output<number | null>;
  /** When the pending invitation expires; null for members. */
  declare readonly invitationExpiration: pulumi.Output<string | null>;
  /** True when create found the person already a member or invited and took them over. */
  declare readonly adopted: pulumi.Output<boolean>;
  declare readonly resendWhenExpired: pulumi.Output<boolean | undefined>;
  declare readonly allowAdminRemoval: pulumi.Output<boolean | undefined>;

  constructor(name: string, args: OrgMemberArgs, opts?: pulumi.CustomResourceOptions) {
    super("OrgMember", name, args, ["status", "userId", "invitationExpiration", "adopted", "managed", "schemaVersion", "permissions", "userIdentifiers", "firstName", "lastName", "resendWhenExpired", "allowAdminRemoval"], opts);
  }
}
