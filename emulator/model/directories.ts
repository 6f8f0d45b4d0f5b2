/**
 * Legal-hold custodian directories: lookup, creation, and E5's sync of their custodians.
 *
 * Sync (spec): a person matched by email (case-insensitively) has all values overwritten, so a
 * property absent from the CSV is empty afterwards; a new email adds a person. The spec does not
 * say that people missing from the CSV are removed, so they stay.
 */
import type { ParsedCustodians } from "../../contract/custodianCsv";
import { NotFound } from "./errors";
import type { Organizations } from "./organizations";
import type { DirectoryRecord } from "./records";
import { emailKey, type World } from "./world";

/** Custodian directories of organizations. */
export class Directories {
  constructor(
    private readonly world: World,
    private readonly organizations: Organizations,
  ) {}

  /** The custodian directory, or NotFound. */
  get(id: number): DirectoryRecord {
    const d = this.world.directories.get(id);
    if (!d) throw new NotFound("directory", id);
    return d;
  }

  /** Creates an empty custodian directory owned by an organization. */
  create(input: { organizationId: number; name: string }): DirectoryRecord {
    this.organizations.get(input.organizationId);
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

  /** Deletes the directory, as the web application can (the API cannot); NotFound when there is none. */
  delete(id: number): void {
    this.get(id);
    this.world.directories.delete(id);
    this.world.changed();
  }

  /**
   * E5: merges the people of a parsed CSV into the directory by email (see the top of this file)
   * and writes CUSTODIANS_SYNCED, counting the people synced and those ignored (no email).
   */
  syncCustodians(directoryId: number, parsed: ParsedCustodians, actorId: number | null): DirectoryRecord {
    const directory = this.get(directoryId);
    const byEmail = new Map(directory.custodians.map((c, i) => [emailKey(c.email), i]));
    for (const person of parsed.people) {
      const at = byEmail.get(emailKey(person.email));
      if (at === undefined) {
        byEmail.set(emailKey(person.email), directory.custodians.length);
        directory.custodians.push(person);
      } else {
        directory.custodians[at] = person;
      }
    }
    this.world.appendEvent(
      directory.organizationId,
      "CUSTODIANS_SYNCED",
      actorId,
      `${parsed.people.length} custodians were synced into directory ${directory.name}`,
      { directoryId: directory.id, synced: parsed.people.length, ignored: parsed.ignored.length },
    );
    this.world.changed();
    return directory;
  }
}
