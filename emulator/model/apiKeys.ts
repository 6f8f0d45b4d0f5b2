/**
 * API keys as records: minting a user's key or an organization's key (with its synthetic user),
 * revoking one, and resolving a key to its caller. The key text (prefix, key id) is keys.ts's.
 */
import { NotFound } from "./errors";
import { keyIdOf, mintKeyText } from "./keys";
import type { Organizations } from "./organizations";
import type { Caller, KeyRecord, UserRecord } from "./records";
import type { Users } from "./users";
import type { World } from "./world";

/** API keys: who each one acts as, and with which rate-limit account. */
export class ApiKeys {
  constructor(
    private readonly world: World,
    private readonly organizations: Organizations,
    private readonly users: Users,
  ) {}

  /** Mints a key that acts as the user, with the user's roles. */
  mintUserKey(userId: number, label = `user ${userId}`): KeyRecord {
    const user = this.users.get(userId);
    if (user.apiKeyOf !== undefined) throw new NotFound("user", userId);
    const key = mintKeyText(this.world.random, (k) => this.world.keys.has(k));
    const record: KeyRecord = { key, keyId: keyIdOf(key), kind: "user", userId, label };
    this.world.keys.set(key, record);
    this.world.changed();
    return record;
  }

  /**
   * Mints an organization-level key: org admin of the organization, and parent org admin of its
   * sub-organizations. Each key gets its own synthetic user (E2 answers with it; it is the
   * actor of the events the key causes and never a member).
   */
  mintOrganizationKey(organizationId: number, label = `organization ${organizationId}`): KeyRecord {
    const org = this.organizations.get(organizationId);
    const key = mintKeyText(this.world.random, (k) => this.world.keys.has(k));
    const keyId = keyIdOf(key);
    const keyUser: UserRecord = {
      id: this.world.allocateId("user"),
      firstName: "API key",
      lastName: keyId,
      title: `Organization key of ${org.name}`,
      username: `apikey-${keyId.toLowerCase()}`,
      email: `apikey-${keyId.toLowerCase()}@keys.invalid`,
      primaryOrganization: organizationId,
      lastActivity: null,
      lastLoggedOut: null,
      mfaRequired: false,
      active: true,
      apiKeyOf: organizationId,
    };
    this.world.indexUser(keyUser);
    const record: KeyRecord = { key, keyId, kind: "organization", userId: keyUser.id, organizationId, label };
    this.world.keys.set(key, record);
    this.world.changed();
    return record;
  }

  /** Every key, in the order minted. */
  all(): KeyRecord[] {
    return [...this.world.keys.values()];
  }

  /** Revokes a key, named by its full text or its middle segment. */
  revoke(keyOrId: string): void {
    const record = this.world.keys.get(keyOrId) ?? [...this.world.keys.values()].find((k) => k.keyId === keyOrId);
    if (!record) throw new NotFound("API key", keyOrId);
    this.world.keys.delete(record.key);
    this.world.changed();
  }

  /**
   * The caller behind a key, or undefined for an unknown key. Each key is its own rate-limit
   * account for organization keys; user keys share their user's account.
   */
  resolve(key: string): Caller | undefined {
    const record = this.world.keys.get(key);
    if (!record) return undefined;
    if (record.kind === "organization") {
      return {
        kind: "organization",
        key: record,
        userId: record.userId,
        organizationId: record.organizationId!,
        account: `key:${record.keyId}`,
      };
    }
    if (!this.world.users.has(record.userId)) return undefined;
    return { kind: "user", key: record, userId: record.userId, account: `user:${record.userId}` };
  }
}
