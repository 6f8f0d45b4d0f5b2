/**
 * Legal-hold custodian directories: lookup and creation. E5's sync of their custodians is
 * ../handlers/custodians.ts.
 */
import { NotFound } from "./errors";
import type { Organizations } from "./organizations";
import type { DirectoryRecord } from "./records";
import type { World } from "./world";

/** Custodian directories of organizations. */
export class Directories {
  constructor(
    private readonly world: World,
    private readonly organizations: Organizations,
  ) {}

  /** The custodian directory, or NotFound. */
  directory(id: number): DirectoryRecord {
    const d = this.world.directories.get(id);
    if (!d) throw new NotFound("directory", id);
    return d;
  }

  /** Creates an empty custodian directory owned by an organization. */
  createDirectory(input: { organizationId: number; name: string }): DirectoryRecord {
    this.organizations.organization(input.organizationId);
    const d: DirectoryRecord = {
      id: this.world.allocateId("directory"),
      organizationId: input.organizationId,
      name: input.name,
      custodians: [],
    };
    this.world.directories.set(d.id, d);
    this.world.changed();
    return d;
  }
}
