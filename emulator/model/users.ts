/**
 * Platform users: lookup by id and by email (case-insensitive), creation. Memberships are
 * members.ts's; the synthetic users behind organization keys are apiKeys.ts's.
 */
import { NotFound } from "./errors";
import type { UserRecord } from "./records";
import { emailKey, type World } from "./world";

/** A new user's fields (control API, invitation acceptance, synthetic members). */
export interface NewUser {
  email: string;
  firstName?: string;
  lastName?: string;
  title?: string;
  username?: string;
}

/** Platform users (and, by id, the users behind organization keys). */
export class Users {
  constructor(private readonly world: World) {}

  /** The user, or NotFound. Key users (behind organization keys) count as users here. */
  get(id: number): UserRecord {
    const user = this.find(id);
    if (!user) throw new NotFound("user", id);
    return user;
  }

  /** The user (platform or key user), or undefined. */
  find(id: number): UserRecord | undefined {
    return this.world.users.get(id);
  }

  /** The platform user with this email (case-insensitive), if any. */
  findByEmail(email: string): UserRecord | undefined {
    const id = this.world.userByEmail.get(emailKey(email));
    return id === undefined ? undefined : this.world.users.get(id);
  }

  /** Creates a platform user (no memberships yet). */
  create(input: NewUser, primaryOrganization: number | null = null): UserRecord {
    const email = input.email.trim();
    const local = email.split("@")[0] ?? email;
    const user: UserRecord = {
      id: this.world.allocateId("user"),
      firstName: input.firstName ?? local,
      lastName: input.lastName ?? "",
      title: input.title ?? "",
      username: input.username ?? emailKey(email),
      email,
      primaryOrganization,
      lastActivity: null,
      lastLoggedOut: null,
      mfaRequired: false,
      active: true,
    };
    this.world.indexUser(user);
    this.world.changed();
    return user;
  }
}
