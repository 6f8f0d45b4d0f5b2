/**
 * Creates in flight: a create the API cannot look for afterwards (a dataset, a source file: no
 * list endpoint) is remembered on disk before it is sent, and forgotten once its answer arrives
 * or the service refuses it. A mark still there at the next run means the answer was lost (a
 * network failure or a timeout after sending): the service may have made the object, so the next
 * create stops and says how to proceed (adopt it by id, or confirm a new create) instead of
 * making a second one.
 *
 * With `PULUMI_SKIP_CHECKPOINTS` the engine writes the state only when a run ends, so a run killed
 * after a create was answered loses the object's id too; the mark then stays with the id (`made`)
 * and the next create takes that object over instead of making a second one. The next run that
 * sees the object in its state (diff, delete) forgets the mark (`forgetMade`).
 *
 * Kept beside the upload resume points (../../upload/resumePoint.ts) and in the same way: one
 * small JSON file per create in `.reviewadmin/creates/` under the working directory (the
 * program's folder in a Pulumi run), named as resume points are (localRecordFile).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ResourceError } from "../../failures";
import { localRecordFile, resumeFolder } from "../../upload/resumePoint";
import { say } from "./messages";

/** What identifies one object being created: the service, the kind, where it goes and its name. */
export interface CreateIdentity {
  baseUrl: string;
  kind: "Dataset" | "SourceFile";
  databaseId: number;
  /** The dataset a source file goes into. */
  datasetId?: number;
  /** The dataset's name, or the source file's file name. */
  name: string;
}

/** A create whose answer never came (or came, in a run whose state was never written): when it was sent, and the file that remembers it. */
export interface LostCreate {
  /** ISO 8601 time the create was sent; also the value that confirms a new create (createAfterLostAnswer). */
  sentAt: string;
  file: string;
  /** The id the service answered, when the answer came but the run was killed before the engine wrote its state. */
  madeId?: number;
}

/** True when the engine writes the state only at the end of a run (PULUMI_SKIP_CHECKPOINTS, read by the CLI and passed to its plugins). */
export function skipsCheckpoints(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = (env.PULUMI_SKIP_CHECKPOINTS ?? "").toLowerCase();
  return v === "true" || v === "1";
}

/** The in-flight mark of one create: read, write before sending, clear once answered. */
export interface InFlightMark {
  /** The earlier create of the same object whose answer was lost, if any. */
  lost(): LostCreate | undefined;
  /** Remembers that the create is being sent (a folder that cannot be written is warned about, not fatal). */
  mark(): void;
  /** Forgets it: refused, or confirmed. */
  clear(): void;
  /**
   * The create was answered with `id`: forgets it, unless the engine will not write the state
   * before the run ends (skipsCheckpoints), when it keeps the id until a later run sees it in state.
   */
  made(id: number): void;
  /** Forgets the mark if it holds `id`: the state has the object now. */
  forgetMade(id: number): void;
}

/** The folder in-flight marks live in, under `cwd`: `creates/` beside the upload resume points' folder. */
export function inFlightFolder(cwd?: string): string {
  return path.join(path.dirname(resumeFolder(cwd)), "creates");
}

/** The in-flight mark of a create, in `inFlightFolder(cwd)`. */
export function inFlightMark(id: CreateIdentity, cwd?: string): InFlightMark {
  const file = localRecordFile(inFlightFolder(cwd), [id.baseUrl, id.kind, id.databaseId, id.datasetId ?? null, id.name]);
  const write = (record: { sentAt: string; madeId?: number }) => {
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify({ ...id, ...record }, null, 2) + "\n");
    } catch (err) {
      // Without the mark, a lost answer is still reported in this run; only the next run cannot tell.
      say.warn(
        `cannot remember the ${id.kind} create in flight in ${file} (${(err as Error).message}): if its answer is lost, the next up cannot tell`,
      );
    }
  };
  return {
    lost() {
      try {
        const { sentAt, madeId } = JSON.parse(fs.readFileSync(file, "utf8")) as { sentAt?: unknown; madeId?: unknown };
        if (typeof sentAt !== "string") return undefined;
        return typeof madeId === "number" ? { sentAt, file, madeId } : { sentAt, file };
      } catch {
        return undefined;
      }
    },
    mark() {
      write({ sentAt: new Date().toISOString() });
    },
    clear() {
      fs.rmSync(file, { force: true });
    },
    made(madeId) {
      if (skipsCheckpoints()) write({ sentAt: this.lost()?.sentAt ?? new Date().toISOString(), madeId });
      else this.clear();
    },
    forgetMade(madeId) {
      if (fs.existsSync(file) && this.lost()?.madeId === madeId) this.clear();
    },
  };
}

/** The inputs that say how to proceed after a lost create (Dataset, SourceFile). */
export interface AfterLostAnswer {
  /** Take over the object the lost create made, by its id, instead of creating one. */
  adoptId?: number;
  /** The `sentAt` of the lost create being confirmed as not made: create a new object anyway. */
  createAfterLostAnswer?: string;
}

/**
 * Before a create: when an earlier create of the same object lost its answer, throws the message
 * that says what may exist and how to proceed, unless the inputs confirm that very create
 * (createAfterLostAnswer equal to its sentAt; a value left from an older one confirms nothing).
 * `action` starts the message; `what`: e.g. "dataset 'Mail' in database 2001"; `adopting`: what adoptId does.
 */
export function stopAfterLostCreate(mark: InFlightMark, inputs: AfterLostAnswer, action: string, what: string, adopting: string): void {
  const lost = mark.lost();
  if (!lost) return;
  if (inputs.createAfterLostAnswer === lost.sentAt) {
    say.info(`${action}: creating it anew, as createAfterLostAnswer confirms (the create sent at ${lost.sentAt} lost its answer)`);
    mark.clear();
    return;
  }
  throw new ResourceError(
    `${action}: an earlier create of ${what} was sent at ${lost.sentAt} and its answer was lost, so the service may have made it; the API cannot ` +
      `look for it, so nothing was sent. Look for it in the web application, then either set adoptId: <its id> to ${adopting}, or, ` +
      `if it is not there, set createAfterLostAnswer: "${lost.sentAt}" to create it anew (the lost create is remembered in ${lost.file})`,
  );
}
