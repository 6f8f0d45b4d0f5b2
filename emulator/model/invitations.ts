/**
 * Invitations to organizations: valid for 14 days after they were (re)sent, expired by the
 * emulator's clock; E13, E14, E15, and the control API's expiry. Accepting one makes a member
 * (members.ts, acceptInvitation).
 */
import type { OrganizationPermission } from "../../contract/types";
import { NotFound } from "./errors";
import type { Organizations } from "./organizations";
import type { InvitationRecord } from "./records";
import { emailKey, unique, type World } from "./world";

/** An invitation is valid for 14 days after it was (re)sent (contract). */
export const INVITATION_LIFETIME_MS = 14 * 24 * 3600 * 1000;

/** Invitations of organizations, pending and expired. */
export class Invitations {
  constructor(
    private readonly world: World,
    private readonly organizations: Organizations,
  ) {}

  /** True when the invitation's expiration is before the emulator's now. */
  isExpired(inv: InvitationRecord): boolean {
    return Date.parse(inv.expiration) < this.world.clock.now();
  }

  /** Invitations of an organization (pending and expired), in id order. */
  of(organizationId: number): InvitationRecord[] {
    this.organizations.get(organizationId);
    return [...this.world.invitations.values()].filter((i) => i.organizationId === organizationId);
  }

  /** The organization's invitation for this email (case-insensitive), if any. */
  find(organizationId: number, email: string): InvitationRecord | undefined {
    const key = emailKey(email);
    return this.of(organizationId).find((i) => emailKey(i.email) === key);
  }

  /** The invitation, or NotFound naming the email. */
  get(organizationId: number, email: string): InvitationRecord {
    this.organizations.get(organizationId);
    const inv = this.find(organizationId, email);
    if (!inv) throw new NotFound(`invitation of organization ${organizationId} for`, email);
    return inv;
  }

  /** Sends a new invitation, valid for 14 days. Writes INVITATION_SENT unless `options.event` is false (seeding). */
  create(
    organizationId: number,
    input: { email: string; firstName?: string; lastName?: string; permissions?: OrganizationPermission[] },
    actorId: number | null = null,
    options: { event?: boolean } = {},
  ): InvitationRecord {
    this.organizations.get(organizationId);
    const now = this.world.clock.now();
    const inv: InvitationRecord = {
      id: this.world.allocateId("invitation"),
      organizationId,
      email: input.email.trim(),
      firstName: input.firstName ?? "",
      lastName: input.lastName ?? "",
      invitedBy: actorId,
      // Invitations made through the API need no second approval: the inviter approves.
      approvedBy: actorId,
      permissions: unique(input.permissions ?? []),
      sent: new Date(now).toISOString(),
      expiration: new Date(now + INVITATION_LIFETIME_MS).toISOString(),
    };
    this.world.invitations.set(inv.id, inv);
    if (options.event !== false)
      this.world.appendEvent(organizationId, "INVITATION_SENT", actorId, `An invitation was sent to ${inv.email}`, {
        email: inv.email,
        permissions: inv.permissions,
      });
    this.world.changed();
    return inv;
  }

  /** E15: sends the invitation again and resets its expiration to 14 days from now. Writes INVITATION_RESENT. */
  resend(organizationId: number, email: string, actorId: number | null = null): InvitationRecord {
    const inv = this.get(organizationId, email);
    const now = this.world.clock.now();
    inv.sent = new Date(now).toISOString();
    inv.expiration = new Date(now + INVITATION_LIFETIME_MS).toISOString();
    this.world.appendEvent(organizationId, "INVITATION_RESENT", actorId, `The invitation to ${inv.email} was sent again`, {
      email: inv.email,
    });
    this.world.changed();
    return inv;
  }

  /** E13: deletes the invitation (pending or expired). Writes INVITATION_DELETED. */
  delete(organizationId: number, email: string, actorId: number | null = null): void {
    const inv = this.get(organizationId, email);
    this.world.invitations.delete(inv.id);
    this.world.appendEvent(organizationId, "INVITATION_DELETED", actorId, `The invitation to ${inv.email} was deleted`, {
      email: inv.email,
    });
    this.world.changed();
  }

  /** Control API: makes the invitation expire now (as if 14 days had passed). */
  expire(organizationId: number, email: string): InvitationRecord {
    const inv = this.get(organizationId, email);
    inv.expiration = new Date(this.world.clock.now() - 1).toISOString();
    this.world.changed();
    return inv;
  }
}
