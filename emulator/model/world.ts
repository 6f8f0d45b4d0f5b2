/**
 * The emulator's world of records: every organization, user, membership, database, project,
 * invitation, directory, API key, event and upload (records.ts), with the indexes kept over them,
 * the id counters, the clock, the PRNG and change notification. The rules that change the records
 * live in one module per aggregate (organizations.ts, users.ts, members.ts, invitations.ts,
 * databases.ts, directories.ts, apiKeys.ts, billing.ts) over this one World; store.ts composes
 * them, and only the aggregates see the World's maps.
 *
 * The whole state is plain data (`toJSON`/`load`), so `--state file.json` can keep a demo
 * world across restarts.
 */
import { Clock, type ClockOption } from "./clock";
import { EventLog } from "./eventLog";
import { prng } from "./random";
import type {
  BillingHistories,
  DatabaseRecord,
  DatabaseUserRecord,
  DirectoryRecord,
  EventRecord,
  IdCounters,
  InvitationRecord,
  KeyRecord,
  MembershipRecord,
  OrganizationRecord,
  ProjectRecord,
  UploadState,
  UserRecord,
  WorldSnapshot,
} from "./records";

/** Where each kind's ids start, so ids read as what they are (101 an org, 1001 a user). */
function initialIds(): IdCounters {
  return { organization: 101, user: 1001, database: 2001, project: 3001, invitation: 4001, directory: 5001, event: 1 };
}

export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

/** How a Store starts: its clock and the seed of its PRNG. */
export interface StoreOptions {
  /** The emulator clock (default: real time). */
  clock?: ClockOption;
  /** Seeds the PRNG used for keys and synthetic data. */
  seed?: number;
}

/** A listener told after every change (the state file uses it to save). */
export type ChangeListener = () => void;

/** Removes repeated items, keeping the first; sorted so stored sets compare equal. */
export function unique<T extends string>(items: readonly T[]): T[] {
  return [...new Set(items)].sort();
}

/** The emulator's whole state: records, indexes, counters, clock and PRNG; the aggregates change it. */
export class World {
  readonly clock: Clock;
  /** PRNG for keys and synthetic data; deterministic from the seed. */
  random: () => number;

  nextId: IdCounters = initialIds();
  readonly organizations = new Map<number, OrganizationRecord>();
  readonly users = new Map<number, UserRecord>();
  /** organization id → user id → membership. */
  readonly memberships = new Map<number, Map<number, MembershipRecord>>();
  readonly databases = new Map<number, DatabaseRecord>();
  /** database id → user id → permissions. */
  readonly databaseUsers = new Map<number, Map<number, DatabaseUserRecord>>();
  readonly projects = new Map<number, ProjectRecord>();
  readonly invitations = new Map<number, InvitationRecord>();
  readonly directories = new Map<number, DirectoryRecord>();
  readonly keys = new Map<string, KeyRecord>();
  /** The activity log, in append order (ids increase). */
  events: EventRecord[] = [];
  /** Billing history per project id; billingHistory.ts computes every bill from it. */
  billing: BillingHistories = {};
  /** Roles of the seeded world to their keys. */
  namedKeys: Record<string, string> = {};
  /** The JSON-able state of native uploads (uploadStore.ts), once an upload was made; Store.uploads binds it. */
  uploadState: UploadState | undefined;

  /** Lower-cased email → user id (platform users only, not key users); kept by indexUser. */
  readonly userByEmail = new Map<string, number>();
  /** user id → organization ids of its memberships; kept by indexMembership and members.ts. */
  readonly orgsOfUser = new Map<number, Set<number>>();
  private readonly listeners = new Set<ChangeListener>();

  constructor(options: StoreOptions = {}) {
    this.clock = new Clock(options.clock);
    this.random = prng(options.seed ?? 1);
  }

  // ----- change notification -----

  /** Calls `listener` after every change; returns a function that stops it. */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells listeners that the state changed. Domain modules call it after their own changes. */
  changed(): void {
    for (const l of this.listeners) l();
  }

  /** Next id of a kind. */
  allocateId(kind: keyof IdCounters): number {
    return this.nextId[kind]++;
  }

  /** Adds a user record and indexes its email (key users have none to index). */
  indexUser(user: UserRecord): void {
    this.users.set(user.id, user);
    if (user.apiKeyOf === undefined) this.userByEmail.set(emailKey(user.email), user.id);
  }

  /** Adds a membership record and indexes it by user. */
  indexMembership(m: MembershipRecord): void {
    let byUser = this.memberships.get(m.organizationId);
    if (!byUser) this.memberships.set(m.organizationId, (byUser = new Map()));
    byUser.set(m.userId, m);
    let orgs = this.orgsOfUser.get(m.userId);
    if (!orgs) this.orgsOfUser.set(m.userId, (orgs = new Set()));
    orgs.add(m.organizationId);
  }

  // ----- activity events -----

  /**
   * Appends an organization-level event through eventLog.ts's EventLog: unix-millisecond
   * timestamps by the emulator's clock, ids from the store's counter (append order is id order).
   */
  appendEvent(
    organizationId: number,
    type: string,
    userId: number | null,
    description: string,
    data: Record<string, unknown> = {},
  ): EventRecord {
    return this.eventLog().append({ type, userId, organizationId, description, data }, this.clock.now());
  }

  /** The activity log over the store's events (nothing copied). */
  eventLog(): EventLog {
    return new EventLog(this.events, () => this.allocateId("event"));
  }

  // ----- whole-world operations -----

  /** Empties the world (ids restart) but keeps the clock and listeners. */
  clear(seed = 1): void {
    this.nextId = initialIds();
    for (const m of [
      this.organizations,
      this.users,
      this.memberships,
      this.databases,
      this.databaseUsers,
      this.projects,
      this.invitations,
      this.directories,
      this.keys,
    ]) {
      m.clear();
    }
    this.userByEmail.clear();
    this.orgsOfUser.clear();
    this.events = [];
    this.billing = {};
    this.namedKeys = {};
    this.uploadState = undefined;
    this.random = prng(seed);
    this.changed();
  }

  /** The whole world as plain JSON. */
  toJSON(): WorldSnapshot {
    return {
      version: 1,
      clockOffsetMs: this.clock.offsetMs,
      nextId: { ...this.nextId },
      organizations: [...this.organizations.values()],
      users: [...this.users.values()],
      memberships: [...this.memberships.values()].flatMap((byUser) => [...byUser.values()]),
      databases: [...this.databases.values()],
      databaseUsers: [...this.databaseUsers.values()].flatMap((byUser) => [...byUser.values()]),
      projects: [...this.projects.values()],
      invitations: [...this.invitations.values()],
      directories: [...this.directories.values()],
      keys: [...this.keys.values()],
      events: this.events,
      billing: this.billing,
      namedKeys: { ...this.namedKeys },
      ...(this.uploadState !== undefined ? { uploads: this.uploadState } : {}),
    };
  }

  /** Replaces the world with a snapshot (from toJSON, possibly through a file). */
  load(snapshot: WorldSnapshot): void {
    if (snapshot.version !== 1) throw new Error(`unsupported world snapshot version ${String(snapshot.version)}`);
    this.clear();
    const copy: WorldSnapshot = structuredClone(snapshot);
    this.clock.offsetMs = copy.clockOffsetMs;
    this.nextId = copy.nextId;
    for (const o of copy.organizations) {
      this.organizations.set(o.id, o);
      this.memberships.set(o.id, new Map());
    }
    for (const u of copy.users) this.indexUser(u);
    for (const m of copy.memberships) this.indexMembership(m);
    for (const d of copy.databases) {
      this.databases.set(d.id, d);
      this.databaseUsers.set(d.id, new Map());
    }
    for (const du of copy.databaseUsers) this.databaseUsers.get(du.databaseId)!.set(du.userId, du);
    for (const p of copy.projects) this.projects.set(p.id, p);
    for (const i of copy.invitations) this.invitations.set(i.id, i);
    for (const d of copy.directories) this.directories.set(d.id, d);
    for (const k of copy.keys) this.keys.set(k.key, k);
    this.events = copy.events;
    this.billing = copy.billing ?? {};
    this.namedKeys = copy.namedKeys;
    // Files written before issue 25 kept uploads under `extensions`.
    this.uploadState = copy.uploads ?? copy.extensions?.uploads;
    // The seed's key sequence has been used already (a revoked key must never come back): keys
    // minted after a load come from a fresh sequence.
    this.random = prng(Date.now() ^ (process.pid << 10));
    this.changed();
  }
}
