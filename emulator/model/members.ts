/**
 * Memberships of organizations and the rules of E18 to E22: adding (E19 adds existing users and
 * invites new emails), updating, removing (E20 also leaves the organization's projects), and an
 * invitee accepting. Every change a person could make in the web UI is a plain method here, so
 * the control API makes it "behind the program's back" with the API's own rules.
 */
import type { OrganizationPermission, UserIdentifier } from "../../contract/types";
import type { Databases } from "./databases";
import { NotFound } from "./errors";
import type { Invitations } from "./invitations";
import type { Organizations } from "./organizations";
import type { InvitationRecord, MembershipRecord, UserRecord } from "./records";
import type { Users } from "./users";
import { emailKey, unique, type World } from "./world";

/** What E19 did for each person: unparseable emails, invitations (new or existing), memberships. */
export interface AddUsersOutcome {
  invalid: string[];
  invites: InvitationRecord[];
  users: MembershipRecord[];
}

/** Loose email check: one @, something either side, a dot in the domain, no spaces. */
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** True when `email` can be parsed as an address (E19 puts the others in `invalid`). */
export function isValidEmail(email: string): boolean {
  return EMAIL_RE.test(email.trim());
}

/** Fields E22 may change; a field left out is left as it is. */
export interface MemberUpdate {
  permissions?: OrganizationPermission[];
  userIdentifiers?: UserIdentifier[];
}

/** Memberships of organizations: who is a member where, with which permissions and identifiers. */
export class Members {
  constructor(
    private readonly world: World,
    private readonly organizations: Organizations,
    private readonly users: Users,
    private readonly invitations: Invitations,
    private readonly databases: Databases,
  ) {}

  /** The membership, or undefined. */
  find(organizationId: number, userId: number): MembershipRecord | undefined {
    return this.world.memberships.get(organizationId)?.get(userId);
  }

  /** The membership, or NotFound naming the user within the organization. */
  get(organizationId: number, userId: number): MembershipRecord {
    const m = this.find(organizationId, userId);
    if (!m) throw new NotFound(`member of organization ${organizationId}:`, userId);
    return m;
  }

  /** Members of an organization, in id order. */
  of(organizationId: number): MembershipRecord[] {
    this.organizations.get(organizationId);
    return [...(this.world.memberships.get(organizationId)?.values() ?? [])].sort((a, b) => a.userId - b.userId);
  }

  /** Organization ids a user is a member of, in id order. */
  organizationsOf(userId: number): number[] {
    return [...(this.world.orgsOfUser.get(userId) ?? [])].sort((a, b) => a - b);
  }

  /**
   * Adds a user to an organization with the given permissions. An existing member is left as
   * it is and returned (adding someone twice is not an error). Writes a USER_ADDED event.
   */
  add(organizationId: number, userId: number, permissions: OrganizationPermission[] = [], actorId: number | null = null): MembershipRecord {
    this.organizations.get(organizationId);
    const user = this.users.get(userId);
    const existing = this.find(organizationId, userId);
    if (existing) return existing;
    const m: MembershipRecord = { organizationId, userId, permissions: unique(permissions), userIdentifiers: [] };
    this.world.indexMembership(m);
    if (user.primaryOrganization === null) user.primaryOrganization = organizationId;
    this.world.appendEvent(organizationId, "USER_ADDED", actorId, `${user.email} was added to the organization`, {
      userId,
      email: user.email,
      permissions: m.permissions,
    });
    this.world.changed();
    return m;
  }

  /**
   * Adds a membership without writing an event: the world as it already was (seeding, synthetic
   * data), not a change anyone made. An existing membership is replaced.
   */
  seed(
    organizationId: number,
    userId: number,
    permissions: OrganizationPermission[] = [],
    userIdentifiers: UserIdentifier[] = [],
  ): MembershipRecord {
    this.organizations.get(organizationId);
    const user = this.users.get(userId);
    const m: MembershipRecord = {
      organizationId,
      userId,
      permissions: unique(permissions),
      userIdentifiers: userIdentifiers.map((i) => ({ ...i })),
    };
    this.world.indexMembership(m);
    if (user.primaryOrganization === null) user.primaryOrganization = organizationId;
    this.world.changed();
    return m;
  }

  /** E22: sets the fields given; a field left out is left as it is. Writes USER_UPDATED. */
  update(organizationId: number, userId: number, update: MemberUpdate, actorId: number | null = null): MembershipRecord {
    this.organizations.get(organizationId);
    const m = this.get(organizationId, userId);
    if (update.permissions !== undefined) m.permissions = unique(update.permissions);
    if (update.userIdentifiers !== undefined)
      m.userIdentifiers = update.userIdentifiers.map((i) => ({ abbreviation: i.abbreviation, label: i.label }));
    this.world.appendEvent(organizationId, "USER_UPDATED", actorId, `${this.users.get(userId).email} was updated`, {
      userId,
      permissions: m.permissions,
      userIdentifiers: m.userIdentifiers,
    });
    this.world.changed();
    return m;
  }

  /**
   * E20: removes the member from the organization and from the projects of the organization's
   * databases (the spec: "also removes the user from the organization's projects"). Database
   * permissions stay: the spec removes those only through E24. Writes USER_REMOVED.
   */
  remove(organizationId: number, userId: number, actorId: number | null = null): void {
    this.organizations.get(organizationId);
    this.get(organizationId, userId);
    this.world.memberships.get(organizationId)!.delete(userId);
    this.world.orgsOfUser.get(userId)?.delete(organizationId);
    for (const db of this.databases.of(organizationId)) {
      for (const p of this.databases.projectsOf(db.id)) p.userIds = p.userIds.filter((id) => id !== userId);
    }
    const user = this.users.get(userId);
    if (user.primaryOrganization === organizationId) user.primaryOrganization = this.organizationsOf(userId)[0] ?? null;
    this.world.appendEvent(organizationId, "USER_REMOVED", actorId, `${user.email} was removed from the organization`, {
      userId,
      email: user.email,
    });
    this.world.changed();
  }

  /**
   * E19: for each person, an existing platform user becomes a member (an existing member is
   * returned unchanged), an unknown email gets an invitation (an existing invitation for that
   * email is returned, not duplicated), an unparseable email lands in `invalid`.
   */
  addUsers(
    organizationId: number,
    people: { email: string; firstName: string; lastName: string }[],
    permissions: OrganizationPermission[] = [],
    actorId: number | null = null,
  ): AddUsersOutcome {
    this.organizations.get(organizationId);
    const outcome: AddUsersOutcome = { invalid: [], invites: [], users: [] };
    const seen = new Set<string>();
    for (const person of people) {
      if (!isValidEmail(person.email)) {
        outcome.invalid.push(person.email);
        continue;
      }
      // The same email twice in one request is one person.
      if (seen.has(emailKey(person.email))) continue;
      seen.add(emailKey(person.email));
      const user = this.users.findByEmail(person.email);
      if (user) {
        outcome.users.push(this.add(organizationId, user.id, permissions, actorId));
      } else {
        outcome.invites.push(
          this.invitations.find(organizationId, person.email) ??
            this.invitations.create(organizationId, { ...person, permissions }, actorId),
        );
      }
    }
    return outcome;
  }

  /**
   * Control API: the invitee accepts. Creates the user when the email is new, adds the
   * membership with the invitation's permissions and deletes the invitation. An expired
   * invitation cannot be accepted (NotFound would hide why, so the caller checks first).
   */
  acceptInvitation(organizationId: number, email: string, actorId?: number): { user: UserRecord; membership: MembershipRecord } {
    const inv = this.invitations.get(organizationId, email);
    const user =
      this.users.findByEmail(inv.email) ??
      this.users.create({ email: inv.email, firstName: inv.firstName || undefined, lastName: inv.lastName }, organizationId);
    this.world.invitations.delete(inv.id);
    // The inviter is the actor of the resulting USER_ADDED event.
    const membership = this.add(organizationId, user.id, inv.permissions, actorId ?? inv.invitedBy);
    this.world.changed();
    return { user, membership };
  }
}
