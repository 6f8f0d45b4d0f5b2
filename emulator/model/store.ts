/**
 * The emulator's world and its rules, as callers use them: `Store` composes one aggregate per
 * kind of thing over the World of records (world.ts), each a field named after its module:
 *
 *   organizations  organizations and their tree      users        platform users
 *   members        memberships, E19's add-or-invite  invitations  invitations
 *   databases      databases, projects, DB users     directories  custodian directories, E5's sync
 *   apiKeys        minting, revoking, resolving keys billing      billing histories and bills
 *   events         the activity log                  uploads      native uploads
 *
 * so a handler calls `store.members.remove(...)`, and go-to-definition lands on the rule. The
 * World's maps stay behind the aggregates. The store knows nothing of HTTP: the aggregates hold
 * the service's rules (what E19 does with an unknown email, what E20 removes) so the API handlers
 * and the control API share them; lookups throw the named errors of errors.ts (NotFound, ...),
 * which ../errors.ts maps to statuses in one place. Every change a person could make in the web
 * UI is a plain method, so the control API can make it "behind the program's back" without auth.
 */
import { ApiKeys } from "./apiKeys";
import { Billing } from "./billing";
import type { Clock } from "./clock";
import { Databases } from "./databases";
import { Directories } from "./directories";
import type { EventLog } from "./eventLog";
import { Invitations } from "./invitations";
import { Members } from "./members";
import { Organizations } from "./organizations";
import type { IdCounters, WorldSnapshot } from "./records";
import { UploadStore, type UploadOptions } from "./uploadStore";
import { Users } from "./users";
import { World, type ChangeListener, type StoreOptions } from "./world";

/** The emulator's whole state and the rules that change it, one aggregate per field. */
export class Store {
  readonly #world: World;
  /** The emulator clock (tests and the control API move it). */
  readonly clock: Clock;
  readonly organizations: Organizations;
  readonly users: Users;
  readonly members: Members;
  readonly invitations: Invitations;
  readonly databases: Databases;
  readonly directories: Directories;
  readonly apiKeys: ApiKeys;
  readonly billing: Billing;
  /** The live upload store bound to the world's `uploadState` (temp folder, part tokens, timers), made on first use. */
  #uploads: UploadStore | undefined;
  /** Options of the next upload store bound (configureUploads). */
  #uploadOptions: UploadOptions = {};

  constructor(options: StoreOptions = {}) {
    const world = new World(options);
    this.#world = world;
    this.clock = world.clock;
    this.organizations = new Organizations(world);
    this.users = new Users(world);
    this.invitations = new Invitations(world, this.organizations);
    this.databases = new Databases(world, this.organizations, this.users);
    this.members = new Members(world, this.organizations, this.users, this.invitations, this.databases);
    this.directories = new Directories(world, this.organizations);
    this.apiKeys = new ApiKeys(world, this.organizations, this.users);
    this.billing = new Billing(world, this.organizations, this.databases);
  }

  /** The activity log (E10 to E12) over the world's events; the aggregates append to it. */
  get events(): EventLog {
    return this.#world.eventLog();
  }

  /** Roles of the seeded world to their keys (orgAdmin, member, ...). */
  get namedKeys(): Record<string, string> {
    return this.#world.namedKeys;
  }

  set namedKeys(keys: Record<string, string>) {
    this.#world.namedKeys = keys;
  }

  /** The id the next record of a kind will get (synthetic data names things after it). */
  peekId(kind: keyof IdCounters): number {
    return this.#world.nextId[kind];
  }

  // ----- change notification and the whole world -----

  /** Calls `listener` after every change; returns a function that stops it. */
  onChange(listener: ChangeListener): () => void {
    return this.#world.onChange(listener);
  }

  /** Tells listeners that the state changed (after a test or the control API changed a record in place). */
  changed(): void {
    this.#world.changed();
  }

  /** Empties the world (ids restart) but keeps the clock and listeners. */
  clear(seed = 1): void {
    this.#world.clear(seed);
  }

  /** The whole world as plain JSON (what --state writes). */
  toJSON(): WorldSnapshot {
    return this.#world.toJSON();
  }

  /** Replaces the world with a snapshot (toJSON's, possibly through a file; files of earlier versions read too). */
  load(snapshot: WorldSnapshot): void {
    this.#world.load(snapshot);
  }

  // ----- native uploads -----

  /**
   * Native uploads over the world's `uploadState`: bound on first use, and bound again once
   * clear or load replaced the state (the old one's timers stop; its bytes stay until close or exit).
   */
  get uploads(): UploadStore {
    const world = this.#world;
    const current = this.#uploads;
    if (current && world.uploadState === current.state) return current;
    current?.stop();
    const uploads = new UploadStore(
      { now: () => world.clock.now(), onChange: () => world.changed(), ...this.#uploadOptions },
      world.uploadState,
    );
    world.uploadState = uploads.state;
    this.#uploads = uploads;
    return uploads;
  }

  /** Sets the upload options (tests: small parts, short delays) and binds a new upload store; the state is kept. */
  configureUploads(options: UploadOptions): UploadStore {
    this.#uploadOptions = options;
    this.#uploads?.stop();
    this.#uploads = undefined;
    return this.uploads;
  }

  /** Closes the upload store, if one was ever bound: timers, downloads, its temp folder. */
  async closeUploads(): Promise<void> {
    if (this.#world.uploadState !== undefined) await this.uploads.close();
  }
}
