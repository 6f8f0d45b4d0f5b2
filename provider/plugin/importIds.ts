/**
 * `pulumi import` and `pulumi do ... list` under the plugin face: each kind's id, short enough to type, and the stored state
 * it stands for, which the kind's own read then fills from the service (as refresh does). The ids
 * are the ones the resources already have, so an imported resource's id is the id it keeps.
 *
 *   OrganizationMembers      organization/<organizationId>   (imported authoritative: everyone in it;
 *                                                            expired invitations protected, not declared)
 *   DatabaseUsers            database/<databaseId>           (imported authoritative: everyone with access)
 *   OrgMember                <organizationId>/<email>
 *   Invitation               <organizationId>/<email>
 *   DatabaseUserPermissions  <databaseId>/<userId>
 *   OrgMemberPermissions     <organizationId>/<userId>
 *   UserIdentifiers          <organizationId>/<userId>
 *
 * The other kinds are not live objects one can point at: an EthicalWall is a rule the program
 * states, and Dataset, SourceFile and CustodianDirectorySync have no read in the API.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ResourceImpl } from "../resources/support/implementation";
import type { Run } from "../resources/support/run";
import type { ReviewAdminClient } from "../client";
import { carryUrn } from "../pluginHost";
import { asImport } from "../resources/support/lifecycle";
import { getDatabaseUsers, getOrganizationInvitations, getOrganizationMembers } from "../data";

/** How one kind's id reads: its pattern (for the message) and the stored state it stands for. */
interface ImportId {
  pattern: string;
  parse(parts: string[]): Record<string, unknown> | undefined;
  /**
   * Rosters: from a first read, the stored state that manages everyone it found (a second read
   * then records them as the roster's, so the next up has nothing to add), and the inputs to keep.
   */
  adopt?(props: Record<string, unknown>): {
    stored: Record<string, unknown>;
    inputs(inputs: Record<string, unknown>): Record<string, unknown>;
  };
}

const whole = (s: string | undefined) => (s !== undefined && /^[1-9][0-9]*$/.test(s) ? Number(s) : undefined);
const email = (s: string | undefined) => (s && s.includes("@") ? s.trim().toLowerCase() : undefined);

/** Every importable kind's id. */
export const IMPORT_IDS: Record<string, ImportId> = {
  OrganizationMembers: {
    pattern: "organization/<organizationId>",
    parse: ([word, id]) =>
      word === "organization" && whole(id) ? { organizationId: whole(id), mode: "authoritative", managed: {} } : undefined,
    // An expired invitation is not access: it is protected (kept, not re-sent) rather than declared.
    adopt: (props) => {
      const people = Object.entries(props.members as Record<string, { status: string; permissions: string[] }>);
      const expired = people.filter(([, p]) => p.status === "expired").map(([e]) => e);
      const managed = Object.fromEntries(people.filter(([e]) => !expired.includes(e)).map(([e]) => [e, ["permissions"]]));
      return {
        stored: {
          organizationId: props.organizationId,
          mode: "authoritative",
          managed,
          ...(expired.length ? { protectedEmails: expired } : {}),
        },
        inputs: (i) => ({
          ...i,
          members: Object.fromEntries(Object.entries(i.members as object).filter(([e]) => !expired.includes(e))),
          ...(expired.length ? { protectedEmails: expired } : {}),
        }),
      };
    },
  },
  DatabaseUsers: {
    pattern: "database/<databaseId>",
    parse: ([word, id]) =>
      word === "database" && whole(id) ? { databaseId: whole(id), mode: "authoritative", managedUserIds: [] } : undefined,
    adopt: (props) => ({
      stored: { databaseId: props.databaseId, mode: "authoritative", managedUserIds: Object.keys(props.users as object).map(Number) },
      inputs: (i) => i,
    }),
  },
  OrgMember: {
    pattern: "<organizationId>/<email>",
    // Imported with its permissions managed: the generated code then declares what the person holds.
    parse: ([org, e]) =>
      whole(org) && email(e)
        ? { organizationId: whole(org), email: email(e), managed: ["permissions"], permissions: [], adopted: true }
        : undefined,
  },
  Invitation: {
    pattern: "<organizationId>/<email>",
    parse: ([org, e]) => (whole(org) && email(e) ? { organizationId: whole(org), email: email(e), adopted: true } : undefined),
  },
  DatabaseUserPermissions: {
    pattern: "<databaseId>/<userId>",
    parse: ([db, user]) => (whole(db) && whole(user) ? { databaseId: whole(db), userId: whole(user), adopted: true } : undefined),
  },
  OrgMemberPermissions: {
    pattern: "<organizationId>/<userId>",
    parse: ([org, user]) =>
      whole(org) && whole(user) ? { organizationId: whole(org), userId: whole(user), namedBy: "userId" } : undefined,
  },
  UserIdentifiers: {
    pattern: "<organizationId>/<userId>",
    parse: ([org, user]) =>
      whole(org) && whole(user) ? { organizationId: whole(org), userId: whole(user), namedBy: "userId" } : undefined,
  },
};

/** One listed object: its id (an import id) and a name a person recognizes. */
export interface Listed {
  id: string;
  name: string;
}

/** Where a list looks: an organization or a database. */
const IN_ORGANIZATION = { organizationId: { type: "integer", description: "The organization whose objects to list." } } as const;
const IN_DATABASE = { databaseId: { type: "integer", description: "The database whose users to list." } } as const;

/** Members of an organization, as `<organizationId>/<userId>` ids (OrgMemberPermissions, UserIdentifiers). */
async function membersByUserId(q: Record<string, unknown>, client: ReviewAdminClient): Promise<Listed[]> {
  const r = await getOrganizationMembers({ organizationId: q.organizationId as number }, { client });
  return r.members.map((m) => ({ id: `${r.organizationId}/${m.id}`, name: m.email }));
}

/**
 * The kinds `pulumi do <kind> list` lists (the List call), with what a list is asked for (the
 * schema's `listInputs`, added when the plugin serves its schema) and the ids it answers with:
 * the import ids above, so a listed id can be read or imported as it is.
 */
export const LISTS: Record<
  string,
  {
    inputs: Record<string, { type: string; description: string }>;
    list(query: Record<string, unknown>, client: ReviewAdminClient): Promise<Listed[]>;
  }
> = {
  OrgMember: {
    inputs: IN_ORGANIZATION,
    list: async (q, client) => {
      const r = await getOrganizationMembers({ organizationId: q.organizationId as number }, { client });
      return r.members.map((m) => ({ id: `${r.organizationId}/${m.email.toLowerCase()}`, name: m.email }));
    },
  },
  Invitation: {
    inputs: IN_ORGANIZATION,
    list: async (q, client) => {
      const r = await getOrganizationInvitations({ organizationId: q.organizationId as number }, { client });
      return r.invitations.map((i) => ({ id: `${r.organizationId}/${i.email.toLowerCase()}`, name: `${i.email} (${i.status})` }));
    },
  },
  DatabaseUserPermissions: {
    inputs: IN_DATABASE,
    list: async (q, client) => {
      const r = await getDatabaseUsers({ databaseId: q.databaseId as number }, { client });
      return r.users.map((u) => ({ id: `${r.databaseId}/${u.user.id}`, name: u.user.email ?? u.user.username ?? String(u.user.id) }));
    },
  },
  OrgMemberPermissions: { inputs: IN_ORGANIZATION, list: membersByUserId },
  UserIdentifiers: { inputs: IN_ORGANIZATION, list: membersByUserId },
};

/** Why a kind has no import id (the message `pulumi import` prints). */
const NOT_IMPORTABLE: Record<string, string> = {
  EthicalWall: "a wall is a rule the program states (databases, people or team, reason), not an object of the service: declare it",
  Dataset: "the API has no read of a dataset by id: declare it, and create adopts the dataset of that name",
  SourceFile: "the API has no read of a source file by id: declare it with adoptId",
  CustodianDirectorySync: "the API has no read of a directory's people: declare it; its first up uploads the file",
};

/**
 * Reads the object an import id names (ReadRequest with no stored state): the kind's read on the
 * state the id stands for. A malformed id is refused naming the kind's pattern; an id naming
 * nothing reads as gone (the engine then says the resource does not exist).
 */
export async function readForImport(
  run: Run,
  kind: string,
  impl: ResourceImpl,
  id: string,
  urn: string,
): Promise<pulumi.dynamic.ReadResult> {
  const spec = IMPORT_IDS[kind];
  if (!spec) throw new Error(`pulumi-reviewadmin: ${kind} cannot be imported: ${NOT_IMPORTABLE[kind] ?? "it has no import id"}`);
  const parts = id.split("/");
  const stored = parts.length === 2 ? spec.parse(parts) : undefined;
  if (!stored)
    throw new Error(`pulumi-reviewadmin: '${id}' is not a ${kind} id: write it as ${spec.pattern} (e.g. ${example(spec.pattern)})`);
  const first = await impl.read(run, id, carryUrn(asImport(stored), urn));
  if (!spec.adopt || !first.props) return first;
  const adopted = spec.adopt(first.props);
  const second = await impl.read(run, id, carryUrn(asImport(adopted.stored), urn));
  return second.inputs ? { ...second, inputs: adopted.inputs(second.inputs) } : second;
}

function example(pattern: string): string {
  return pattern
    .replace("<organizationId>", "102")
    .replace("<databaseId>", "7")
    .replace("<userId>", "1003")
    .replace("<email>", "ada@northwind.example");
}
