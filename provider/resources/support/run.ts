/**
 * One Pulumi operation (a preview, an up, a refresh, a destroy, an import) as the provider serves
 * it: an explicit value that each face makes for the run it serves and that every step of that
 * run is handed (lifecycle.ts passes it in each `Operation`). Nothing of a run lives in a module:
 * a test makes a fresh Run for each simulated `pulumi` run in one process, as the engine starts a
 * fresh plugin process for each real one.
 *
 * What a run knows:
 * - its settings (Configure's) and the one client made from them, so every list a gateway reads
 *   (access/runCache.ts, keyed by this client) is read once per run and never outlives it;
 * - whether it is a preview, once the engine has said so (`learnPreview`);
 * - the claims its resources made at check (handover.ts), the URNs the program named at check, and
 *   which resources it read (the refresh rule, `readThenDiffed`);
 * - where its messages go (messages.ts): the engine's log, or a test's list, and the working
 *   folder its local records go to (a create in flight, an upload's resume point).
 */
import { ReviewAdminClient } from "../../client";
import { clientOptions, resolveSettings, type Settings } from "../../settings";
import { Claims } from "./handover";
import { HeldMessages } from "./heldMessages";

/** Where a run's messages go (messages.ts): one message of a resource, or of the run when `urn` is undefined. */
export interface MessageSink {
  send(level: "info" | "warning", message: string, urn: string | undefined, ephemeral: boolean): Promise<void>;
}

/** A message of a resource, said but not yet sent (messages.ts holds it until its resource's URN is known). */
export interface Said {
  level: "info" | "warning";
  message: string;
  ephemeral: boolean;
}

/** What a face gives a new run. */
export interface RunOptions {
  /** The run's settings (stack config, an explicit provider's inputs); the environment fills the rest. Configure may set them later. */
  settings?: Partial<Settings>;
  /** Where its messages go (default: as `pulumi.log` prints them, messages.ts). */
  messages?: MessageSink;
  /** The run's working folder, where its local records go (`.reviewadmin/`); default the process's. */
  folder?: string;
}

/** How many ids' URNs a run keeps (nameUrnOfId). */
const URNS_BY_ID = 256;

/** The default expiringSoonDays (settings.ts). */
const SOON_DAYS = 14;

/** One run of the engine, as the provider serves it (see the file comment). */
export class Run {
  /** The resources' claims of this run (handover.ts). */
  readonly claims = new Claims();
  /** Where this run's messages go (undefined: as `pulumi.log` prints them). */
  readonly messages: MessageSink | undefined;
  /** Messages of resources whose URN a later request of the run will name, by `<kind> <id>` (messages.ts). */
  readonly held = new HeldMessages<Said>();
  /** The working folder of the run (the program's, where the engine starts the plugin): its local records (`.reviewadmin/`) go there. */
  readonly folder: string;
  #settings: Partial<Settings>;
  #client: ReviewAdminClient | undefined;
  #preview = false;
  /** URNs requests named, by `<kind> <id>`; undefined when nothing names them (learnUrnsById). */
  #urnsById: Map<string, string> | undefined;
  /** The URNs the program gave at check, by `<kind> <label>`, for the operations that follow. */
  readonly #urns = new Map<string, string>();
  /** Resources read in this run whose next Diff is refresh's (readThenDiffed): `<kind>/<id>`. */
  readonly #read = new Set<string>();

  constructor(opts: RunOptions = {}) {
    this.#settings = opts.settings ?? {};
    this.messages = opts.messages;
    this.folder = opts.folder ?? process.cwd();
  }

  /**
   * Takes the settings Configure gives (the dynamic face's plugin calls it once per resource kind,
   * with the same config each time). Settings that differ from the ones the client was made with
   * make the next step use a new client.
   */
  configure(settings: Partial<Settings>): void {
    if (this.#client && JSON.stringify(settings) !== JSON.stringify(this.#settings)) {
      void this.#client.close();
      this.#client = undefined;
    }
    this.#settings = settings;
  }

  /** The settings in force: Configure's, then the environment; throws SettingsError naming what is missing. */
  settings(): Settings {
    return resolveSettings(this.#settings);
  }

  /** The run's one client (one pacer share and one set of per-run lists), made at its first use. */
  get client(): ReviewAdminClient {
    return (this.#client ??= new ReviewAdminClient(clientOptions(this.settings())));
  }

  /** N of `expiringSoon`: the setting reviewadmin:expiringSoonDays, default 14. */
  soonDays(): number {
    try {
      return this.settings().expiringSoonDays ?? SOON_DAYS;
    } catch {
      return SOON_DAYS;
    }
  }

  /** True once the engine has said this run is a preview: nothing will be written in it. */
  get preview(): boolean {
    return this.#preview;
  }

  /**
   * Records that the engine said this run is a preview: on the dynamic face the program's mark at
   * Check (lifecycle.ts RUN_MARKS, from `pulumi.runtime.isDryRun()`), on the plugin face a Create
   * or Update with `preview` set (plugin/server.ts).
   */
  learnPreview(): void {
    this.#preview = true;
  }

  /**
   * Takes, from now on, the URN of each resource id a request names (`nameUrnOfId`): on the dynamic
   * face the plugin process's hooked requests (pluginHost.ts `hookRequestIds`), so that messages of
   * a resource whose URN is not known yet may wait for it (messages.ts).
   */
  learnUrnsById(): void {
    this.#urnsById ??= new Map();
  }

  /** True when a later request of this run can name a resource's URN by its id (learnUrnsById). */
  get urnsComeById(): boolean {
    return this.#urnsById !== undefined;
  }

  /** Records that a request about `id` named `urn` (the last URNS_BY_ID kept: each is looked up right after). */
  nameUrnOfId(id: string, urn: string): void {
    const urns = this.#urnsById;
    if (!urns || !urn) return;
    const type = urn.split("::")[2] ?? "";
    // Ids are unique within a kind only (OrgMemberPermissions and UserIdentifiers are both `org/user`).
    const key = `${type.slice(type.lastIndexOf(":") + 1)} ${id}`;
    urns.delete(key);
    urns.set(key, urn);
    if (urns.size > URNS_BY_ID) urns.delete(urns.keys().next().value!);
  }

  /** The URN of the resource of `kind` with `id`, once a request of this run named it. */
  urnOfId(kind: string, id: string): string | undefined {
    return this.#urnsById?.get(`${kind} ${id}`);
  }

  /** Records the URN the program gave at check for the resource `<kind> <label>`. */
  nameUrn(kind: string, label: string, urn: string): void {
    this.#urns.set(`${kind} ${label}`, urn);
  }

  /** The URN the program gave at check for `<kind> <label>`, if any. */
  urnOf(kind: string, label: string): string | undefined {
    return this.#urns.get(`${kind} ${label}`);
  }

  /** Records that the resource was read (a refresh's Read, or an import's). */
  recordRead(kind: string, id: string): void {
    this.#read.add(`${kind}/${id}`);
  }

  /**
   * True for the Diff refresh runs right after reading the resource (the read state as olds, the
   * program's inputs as news; Pulumi 3.123 and later), and only for that one Diff. The engine's
   * DiffRequest does not say it comes from a refresh (neither the dynamic plugin's diff(id, olds,
   * news) nor the protocol's id, urn, olds, news and old inputs), so the rule is the order the
   * engine keeps within a run: a Read of a resource, then its Diff. An `up --refresh` reads and
   * diffs each resource first, and its own Diff later finds the mark taken.
   */
  readThenDiffed(kind: string, id: string): boolean {
    return this.#read.delete(`${kind}/${id}`);
  }

  /** Closes the run's client (a test's run; a plugin process's run ends with the process). */
  async close(): Promise<void> {
    await this.#client?.close();
    this.#client = undefined;
  }
}
