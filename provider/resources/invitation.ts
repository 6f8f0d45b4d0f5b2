/**
 * Invitation: a pending invitation managed on its own (E14, E15, E13, created through E19).
 * `status` is `pending`, `expired` or `accepted`. An expired invitation is re-sent on the next up
 * when `resendWhenExpired` (default true); changing `resendTrigger` re-sends on purpose. Once
 * accepted the resource's work is done: it stays in state as `accepted`, and delete leaves the
 * membership alone (manage members with OrgMember).
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { OrganizationPermission, uniqueArray, type OrganizationPermission as Permission } from "../../contract";
import { currentClient } from "../settings";
import {
  SCHEMA_VERSION, checkWith, definedOnly, describeFailure, diffFields, isStatus, normalizeEmail, sortedSet, stripProvider, type ResourceImpl,
} from "./base";
import { deleteInvitation, findLive, invite, reconcileInvitation, resend, type Live } from "./people";
import { ReviewAdminResource } from "./resource";

/** Where an invitation stands. */
export type InvitationStatus = "pending" | "expired" | "accepted";

/** Inputs of an Invitation. */
export interface InvitationArgs {
  /** Changing it replaces. */
  organizationId: pulumi.Input<number>;
  /** Compared case-insensitively. Changing it replaces. */
  email: pulumi.Input<string>;
  firstName?: pulumi.Input<string>;
  lastName?: pulumi.Input<string>;
  /** Permissions the person gets on accepting. A change re-invites (the API cannot edit an invitation). */
  permissions?: pulumi.Input<pulumi.Input<Permission>[]>;
  /** Re-send an expired invitation on the next up. Default true. */
  resendWhenExpired?: pulumi.Input<boolean>;
  /** Any text; changing it re-sends the invitation on purpose. */
  resendTrigger?: pulumi.Input<string>;
}

const Inputs = z.strictObject({
  organizationId: z.number().int().positive({ message: "must be a positive integer organization id" }),
  email: z.string().trim().toLowerCase().pipe(z.email({ message: "must be an email address" })),
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  permissions: uniqueArray(OrganizationPermission).transform((a) => sortedSet(a)!).optional(),
  resendWhenExpired: z.boolean().optional(),
  resendTrigger: z.string().optional(),
});
type Inputs = z.infer<typeof Inputs>;

interface State extends Inputs {
  status: InvitationStatus;
  expiration: string | null;
  /** The user id once accepted. */
  userId: number | null;
  adopted: boolean;
  schemaVersion: number;
}

const label = (s: { email: string; organizationId: number }) => `Invitation of ${s.email} to organization ${s.organizationId}`;
const hint = { forbidden: "the API key needs org admin on this organization" };

function stateOf(inputs: Inputs, live: NonNullable<Live>, adopted: boolean): State {
  const base = { ...inputs, email: normalizeEmail(inputs.email), adopted, schemaVersion: SCHEMA_VERSION };
  if ("member" in live) return definedOnly({ ...base, status: "accepted", expiration: null, userId: live.member.id });
  return definedOnly({
    ...base,
    // The live permissions, not the inputs': a refresh must show an invitation re-sent behind the
    // program's back with other permissions (it used to keep the stored ones, so drift never showed).
    permissions: sortedSet(live.invitation.organizationPermissions),
    status: live.invitation.expired ? "expired" : "pending",
    expiration: live.invitation.expiration,
    userId: null,
  });
}

function inputsOf(state: State): Inputs {
  const { status, expiration, userId, adopted, schemaVersion, ...inputs } = state;
  return inputs;
}

function isExpired(s: State): boolean {
  return s.status === "expired" || (s.status === "pending" && !!s.expiration && Date.parse(s.expiration) <= Date.now());
}

/** The plugin implementation. */
export const invitationImpl: ResourceImpl = {
  async check(_olds, news) {
    return checkWith(Inputs, news);
  },

  async diff(_id, olds: State, news: Inputs) {
    const result = diffFields(olds, news, {
      replaceOn: ["organizationId", "email"],
      update: olds.status === "accepted" ? [] : ["permissions", "resendTrigger", "resendWhenExpired"],
      normalize: (field, v) => (field === "email" && typeof v === "string" ? normalizeEmail(v) : v),
    });
    const resendDue = isExpired(olds) && news.resendWhenExpired !== false;
    return { ...result, changes: result.changes || resendDue };
  },

  async create(raw) {
    const inputs = stripProvider(raw) as Inputs;
    const action = `creating ${label(inputs)}`;
    const client = currentClient();
    try {
      const found = await findLive(client, inputs.organizationId, inputs.email);
      const live = !found ? await invite(client, inputs, action) : "member" in found ? found : await reconcileInvitation(client, inputs, found.invitation, action);
      return { id: `${inputs.organizationId}/${normalizeEmail(inputs.email)}`, outs: stateOf(inputs, live, !!found) };
    } catch (err) {
      throw describeFailure(action, err, hint);
    }
  },

  async read(id, props: State) {
    try {
      const live = await findLive(currentClient(), props.organizationId, props.email, props.userId);
      if (!live) return {};
      const state = stateOf(inputsOf(props), live, props.adopted);
      return { id, props: state, inputs: inputsOf(state) };
    } catch (err) {
      if (isStatus(err, 404)) return {};
      throw describeFailure(`reading ${label(props)}`, err, hint);
    }
  },

  async update(_id, olds: State, raw) {
    const inputs = stripProvider(raw) as Inputs;
    const action = `updating ${label(inputs)}`;
    const client = currentClient();
    try {
      const found = await findLive(client, inputs.organizationId, inputs.email, olds.userId);
      let live: NonNullable<Live>;
      if (!found) live = await invite(client, inputs, action);
      else if ("member" in found) live = found;
      else {
        live = await reconcileInvitation(client, inputs, found.invitation, action);
        // A new trigger re-sends on purpose, unless reconcile just sent a fresh one.
        const triggered = inputs.resendTrigger !== undefined && inputs.resendTrigger !== olds.resendTrigger;
        if (triggered && "invitation" in live && live.invitation === found.invitation) {
          live = { invitation: await resend(client, inputs.organizationId, inputs.email) };
        }
      }
      return { outs: stateOf(inputs, live, olds.adopted) };
    } catch (err) {
      throw describeFailure(action, err, hint);
    }
  },

  async delete(_id, props: State) {
    const client = currentClient();
    try {
      const live = await findLive(client, props.organizationId, props.email, props.userId);
      if (!live) return;
      if ("member" in live) {
        pulumi.log.info(`${label(props)} was accepted; deleting the Invitation leaves ${props.email} a member (manage members with OrgMember).`);
        return;
      }
      await deleteInvitation(client, props.organizationId, live.invitation.email);
    } catch (err) {
      throw describeFailure(`deleting ${label(props)}`, err, hint);
    }
  },
};

/** A pending invitation to an organization, managed on its own. */
export class Invitation extends ReviewAdminResource {
  declare readonly organizationId: pulumi.Output<number>;
  declare readonly email: pulumi.Output<string>;
  declare readonly permissions: pulumi.Output<Permission[] | undefined>;
  /** `pending`, `expired` or `accepted`. */
  declare readonly status: pulumi.Output<InvitationStatus>;
  /** When the invitation expires; null once accepted. */
  declare readonly expiration: pulumi.Output<string | null>;
  /** The person's user id once accepted. */
  declare readonly userId: pulumi.Output<number | null>;
  /** True when create found the invitation (or the membership) already there. */
  declare readonly adopted: pulumi.Output<boolean>;

  constructor(name: string, args: InvitationArgs, opts?: pulumi.CustomResourceOptions) {
    super("Invitation", name, args, ["status", "expiration", "userId", "adopted", "schemaVersion", "permissions"], opts);
  }
}
