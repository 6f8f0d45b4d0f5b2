/**
 * Organizations: lookup, creation (seed and control API; the API cannot create one) and the
 * parent/sub-organization tree. One aggregate of the world (world.ts); store.ts composes them.
 */
import { NotFound } from "./errors";
import type { OrganizationRecord } from "./records";
import type { World } from "./world";

/** Organizations of the world and their tree. */
export class Organizations {
  constructor(private readonly world: World) {}

  /** The organization, or undefined. */
  find(id: number): OrganizationRecord | undefined {
    return this.world.organizations.get(id);
  }

  /** The organization, or NotFound. */
  get(id: number): OrganizationRecord {
    const org = this.find(id);
    if (!org) throw new NotFound("organization", id);
    return org;
  }

  /** Creates an organization (seed and control API; the API cannot). */
  create(input: { name: string; parentOrganizationId?: number | null }): OrganizationRecord {
    if (input.parentOrganizationId != null) this.get(input.parentOrganizationId);
    const org: OrganizationRecord = {
      id: this.world.allocateId("organization"),
      name: input.name,
      parentOrganizationId: input.parentOrganizationId ?? null,
      saml: { entityId: null, mfaBypass: false, state: "DISABLED", updated: null },
    };
    this.world.organizations.set(org.id, org);
    this.world.memberships.set(org.id, new Map());
    this.world.changed();
    return org;
  }

  /** Direct sub-organizations of an organization. */
  subOrganizations(parentId: number): OrganizationRecord[] {
    return [...this.world.organizations.values()].filter((o) => o.parentOrganizationId === parentId);
  }
}
