/**
 * The emulator's state as plain JSON-able records, one type per kind of thing the service holds,
 * and the snapshot of the whole world that `--state` writes. The API's JSON shapes are built from
 * them in ../views.ts; the rules that change them are the aggregates' over world.ts (members.ts,
 * ...), which store.ts composes. This file is the model's floor: it imports nothing of model/.
 */
import type {
  CreateDatasetRequest,
  CreateSourceFileRequest,
  DatabasePermission,
  OrganizationPermission,
  UserIdentifier,
} from "../../contract/types";
import type { Custodian } from "../../contract/custodianCsv";

/** SAML settings of an organization; the spec only shows state DISABLED. */
export interface SamlRecord {
  entityId: string | null;
  mfaBypass: boolean;
  state: string;
  updated: string | null;
}

/** An organization; `parentOrganizationId` is set for sub-organizations. */
export interface OrganizationRecord {
  id: number;
  name: string;
  parentOrganizationId: number | null;
  saml: SamlRecord;
}

/** A platform user. `apiKeyOf` marks the identity behind an organization key (never a member). */
export interface UserRecord {
  id: number;
  firstName: string;
  lastName: string;
  title: string;
  username: string;
  email: string;
  primaryOrganization: number | null;
  lastActivity: string | null;
  lastLoggedOut: string | null;
  mfaRequired: boolean;
  /** Shown as DatabaseUser.active. */
  active: boolean;
  /** Set on the synthetic user that acts for an organization key: the organization's id. */
  apiKeyOf?: number;
}

/** A user's membership of one organization, with the permissions and identifiers it carries there. */
export interface MembershipRecord {
  organizationId: number;
  userId: number;
  permissions: OrganizationPermission[];
  userIdentifiers: UserIdentifier[];
}

/** Document counts and sizes of one kind of document (E30). */
export type DocCountsRecord = {
  docCount: number;
  imageSize: number;
  nativeSize: number;
  textSize: number;
};

/** A database owned by one organization. */
export interface DatabaseRecord {
  id: number;
  name: string;
  owningOrganizationId: number;
  orgAdminAccess: boolean;
  created: string;
  databaseFields: { name: string; type: string; value: string }[];
  size: { nativeDocs: DocCountsRecord; processedDocs: DocCountsRecord; producedDocs: DocCountsRecord };
}

/** A user's database-level permissions. */
export interface DatabaseUserRecord {
  databaseId: number;
  userId: number;
  permissions: DatabasePermission[];
}

/** A project of a database; `userIds` are the users with project access (through user groups). */
export interface ProjectRecord {
  id: number;
  databaseId: number;
  name: string;
  displayName: string;
  created: string;
  eca: boolean;
  partial: boolean;
  mfaRequired: boolean;
  productionMode: boolean;
  suspended: boolean;
  emailThreadingStatus: string;
  lastLogin: string | null;
  userIds: number[];
}

/** An invitation to an organization; expired when `expiration` is before the emulator's now. */
export interface InvitationRecord {
  id: number;
  organizationId: number;
  email: string;
  firstName: string;
  lastName: string;
  invitedBy: number | null;
  approvedBy: number | null;
  permissions: OrganizationPermission[];
  /** When it was last sent (created or re-sent). */
  sent: string;
  expiration: string;
}

/** A legal-hold custodian directory, owned by one organization (E5 syncs `custodians`). */
export interface DirectoryRecord {
  id: number;
  organizationId: number;
  name: string;
  custodians: Custodian[];
}

/** An API key: a user's key acts with the user's roles; an organization key is org admin of it. */
export interface KeyRecord {
  key: string;
  /** The middle segment: what the admin UI shows to identify a key. */
  keyId: string;
  kind: "user" | "organization";
  /** The acting user: the key's owner, or the synthetic user of an organization key. */
  userId: number;
  /** Organization keys only. */
  organizationId?: number;
  /** A name for people reading the key list (the role it was minted for). */
  label: string;
}

/** An activity event as stored (the API view nulls data and description for parent keys). */
export interface EventRecord {
  id: number;
  timestamp: number;
  type: string;
  userId: number | null;
  organizationId: number;
  description: string;
  data: Record<string, unknown>;
}

/** Who is calling, resolved from the API key. */
export type Caller =
  | { kind: "user"; key: KeyRecord; userId: number; account: string }
  | { kind: "organization"; key: KeyRecord; userId: number; organizationId: number; account: string };

/** The id counters, one per kind. */
export interface IdCounters {
  organization: number;
  user: number;
  database: number;
  project: number;
  invitation: number;
  directory: number;
  event: number;
}

// ----- billing history (billingHistory.ts computes every bill from it) -----

/** Bytes of one kind of storage, by data type. */
export interface Bytes {
  nativeBytes: number;
  processedBytes: number;
  producedBytes: number;
}

/** A project's size observed at one instant (unix ms); it holds until the next sample. */
export interface SizeSample {
  at: number;
  standard: Bytes;
  eca: Bytes;
}

/** A dated change of a project's status. */
export interface StatusChange {
  at: number;
  kind: "suspended" | "reactivated" | "deletionRequested" | "deleted";
}

/** The billing history of one project: samples and changes, each sorted by `at`. */
export interface ProjectHistory {
  samples: SizeSample[];
  changes: StatusChange[];
}

/** Every project's history, keyed by project id: what the world keeps as its `billing` field. */
export type BillingHistories = Record<string, ProjectHistory>;

// ----- native uploads (uploadStore.ts holds the rules) -----

/** A dataset: the create request's fields, kept as sent. */
export interface DatasetRecord {
  id: number;
  databaseId: number;
  name: string;
  created: string;
  request: CreateDatasetRequest;
}

/** A received part: where its bytes are and what they hash to. */
export interface PartRecord {
  etag: string;
  size: number;
  path: string;
}

/** Source file states: the contract's three, plus FAILED for a direct link that could not be fetched. */
export type SourceFileStateName = "UPLOADING" | "PROCESSING" | "PROCESSED" | "FAILED";

/** A source file and its upload. */
export interface SourceFileRecord {
  id: number;
  databaseId: number;
  datasetId: number;
  filename: string;
  request: CreateSourceFileRequest;
  state: SourceFileStateName;
  /** Part number → part (multipart uploads). */
  parts: Record<string, PartRecord>;
  /** Set once the file is assembled or downloaded. */
  path?: string;
  size?: number;
  sha1?: string;
  /** Emulator-clock instant at which PROCESSING becomes PROCESSED. */
  processedAt?: number;
  /** Why the file FAILED. */
  error?: string;
}

/** The JSON-able upload state, kept as the world's `uploadState` (world.ts). */
export interface UploadState {
  nextDatasetId: number;
  nextSourceFileId: number;
  datasets: Record<string, DatasetRecord>;
  sourceFiles: Record<string, SourceFileRecord>;
  /** Database id → dataset cap, where it differs from the default. */
  datasetLimits: Record<string, number>;
}

/** The whole world as plain JSON (what --state writes). */
export interface WorldSnapshot {
  version: 1;
  clockOffsetMs: number;
  nextId: IdCounters;
  organizations: OrganizationRecord[];
  users: UserRecord[];
  memberships: MembershipRecord[];
  databases: DatabaseRecord[];
  databaseUsers: DatabaseUserRecord[];
  projects: ProjectRecord[];
  invitations: InvitationRecord[];
  directories: DirectoryRecord[];
  keys: KeyRecord[];
  events: EventRecord[];
  /** Billing history per project id (billingHistory.ts computes bills from it). */
  billing: BillingHistories;
  /** Roles of the seeded world to their keys (orgAdmin, member, ...). */
  namedKeys: Record<string, string>;
  /** Native uploads (uploadStore.ts), once one was made. */
  uploads?: UploadState;
  /** Where files written before issue 25 kept `uploads`; read by load, never written. */
  extensions?: { uploads?: UploadState };
}
