/**
 * SourceFile: one file uploaded into a dataset (up2 to up5), from a local path in parts, or from
 * a direct link the service fetches itself. The upload is uploadFile (../upload/engine.ts).
 *
 * Plan time (check): exactly one of path and directLink; the file exists and is a regular file,
 * is at most 5TB, and its part size gives at most 10,000 parts of 5MB..5GB; the link is https
 * (plain http only to loopback). The file's SHA1 is computed at check and kept in the checked
 * inputs, so an edited file shows as a change and REPLACES the resource (the service cannot
 * change an uploaded file). A moved file with the same content is only an update of the recorded
 * path. The SHA1 is reused from the last check while the file's size, times and inode are
 * unchanged (any write changes its change time), so a preview does not read a large file again.
 *
 * A create that fails after the source file exists (a part that keeps failing, the network, a
 * SHA1 refused at completion) is an IncompleteCreate: the engine keeps the half-created resource
 * with its source file id and `complete: false`. The next `pulumi up` sees the incomplete state
 * in diff and resumes in update: it lists the parts the service has (up4) and sends only the
 * missing ones. A plugin process killed outright cannot report a partial create, so the source
 * file's id is also kept in a resume point on disk (../upload/resumePoint.ts) as soon as it
 * exists: the next create of the same file resumes it.
 *
 * Secrets: `passwords` (and `directLink`, which may carry a pre-signed query) are made secret
 * inputs by the class and listed in additionalSecretOutputs, so they are encrypted in state
 * (inputs and outputs) even when given as plain strings. They stay in the outputs because diff
 * compares against them (a change replaces).
 *
 * No read or delete endpoint: refresh keeps the state as uploaded (its `state` is what the
 * service answered then), and delete leaves the file in the dataset, with a note.
 */
import * as fs from "node:fs";
import * as nodePath from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import { secret } from "@pulumi/pulumi/output";
import { mergeOptions } from "@pulumi/pulumi/resource";
import { say } from "./support/messages";
import { z } from "zod";
import { ParameterError } from "../../contract/parameterError";
import { answerLost, describeCause, isStatus, ResourceError } from "../failures";
import { UploadError, uploadFile, type UploadProgress, type UploadResult } from "../upload/engine";
import { checkDirectLink, defaultFilename, describeLink, fileStamp, formatBytes, planParts, sha1OfFile } from "../upload/plan";
import { resumePointFor, type ResumePoint } from "../upload/resumePoint";
import { debugLogger } from "../settings";
import { definedOnly } from "../util";
import { inFlightMark, stopAfterLostCreate, type InFlightMark } from "./support/inFlight";
import { DatabaseId, idInput } from "./support/inputs";
import { argsMatch, defineResource, IncompleteCreate, outputsMatch, UNKNOWN, type CheckFailure, type Operation } from "./support/lifecycle";
import { ReviewAdminResource, type Outputs } from "./support/resourceClass";

/** Inputs of a SourceFile: exactly one of path and directLink. */
export interface SourceFileArgs {
  databaseId: pulumi.Input<number>;
  /** The dataset (Dataset.datasetId). */
  datasetId: pulumi.Input<number>;
  /** A local file, relative to the program's folder or absolute. Its SHA1 is computed at plan time: a content change replaces. */
  path?: pulumi.Input<string>;
  /** A URL the service fetches itself: https, no user:password, a host that supports HTTP Range requests. Kept secret in state. @secret */
  directLink?: pulumi.Input<string>;
  /** Name of the source file; default the path's base name (or the link's last path segment). */
  filename?: pulumi.Input<string>;
  /** Passwords tried on every encrypted file of the whole dataset. Kept secret in state. @secret */
  passwords?: pulumi.Input<pulumi.Input<string>[]>;
  /** File-level custodian (overrides the dataset's default custodian). */
  custodian?: pulumi.Input<string>;
  /** Child path within the file (e.g. a folder ending in "/") → custodian name. */
  childCustodians?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /** Bytes per part; default the spec's recommendation (the larger of 50,000,000 and 1 + size/10,000). */
  partSize?: pulumi.Input<number>;
  /** Parts in flight at once (default 4); memory is about concurrency × partSize. */
  concurrency?: pulumi.Input<number>;
  /**
   * After a create whose answer was lost: the id of the source file it made (found in the web
   * application). A path upload goes into it (sending the parts it lacks); a direct link's is
   * recorded as it is. Only read at create; never a change.
   */
  adoptId?: pulumi.Input<number>;
  /**
   * After a create whose answer was lost and whose source file is not there: the time that create
   * was sent, as the error names it, to confirm creating a new source file. Only read at create; never a change.
   */
  createAfterLostAnswer?: pulumi.Input<string>;
}

const Inputs = z
  .strictObject({
    databaseId: DatabaseId,
    datasetId: idInput("dataset"),
    path: z.string().min(1, { message: "must not be empty" }).optional(),
    directLink: z.string().min(1, { message: "must not be empty" }).optional(),
    filename: z.string().min(1, { message: "must not be empty" }).optional(),
    passwords: z.array(z.string()).optional(),
    custodian: z.string().min(1, { message: "must not be empty" }).optional(),
    childCustodians: z.record(z.string(), z.string()).optional(),
    partSize: z
      .number()
      .int({ message: "must be an integer number of bytes" })
      .positive({ message: "must be a positive number of bytes" })
      .optional(),
    concurrency: z.number().int().min(1, { message: "must be from 1 to 64" }).max(64, { message: "must be from 1 to 64" }).optional(),
    adoptId: idInput("source file").optional(),
    createAfterLostAnswer: z.string().min(1, { message: "must not be empty" }).optional(),
  })
  .refine((v) => (v.path === undefined) !== (v.directLink === undefined), {
    message: "give exactly one of path (a local file) and directLink (a URL the service fetches)",
    path: ["path"],
  })
  .refine((v) => !(v.directLink !== undefined && v.partSize !== undefined), {
    message: "applies to uploads from a path only; a direct link has no parts",
    path: ["partSize"],
  });
type Inputs = z.infer<typeof Inputs>;
argsMatch<SourceFileArgs, z.input<typeof Inputs>>(true);

/** CheckedInputs inputs: the user's, plus what check computes from the file. */
interface CheckedInputs extends Inputs {
  filename: string;
  /** SHA1 of the file at plan time (path uploads). */
  sha1?: string;
  size?: number;
  /** Size, times and inode at plan time: lets the next check reuse the SHA1. */
  fileStamp?: string;
}

/** What a SourceFile stores. */
export interface SourceFileState {
  databaseId: number;
  datasetId: number;
  path?: string;
  directLink?: string;
  filename: string;
  passwords?: string[];
  custodian?: string;
  childCustodians?: Record<string, string>;
  sourceFileId: number;
  /** As the service answered at upload time (PROCESSING once complete; UPLOADING for a direct link being fetched, or an unfinished upload). */
  state: string;
  size: number | null;
  sha1: string | null;
  partCount: number;
  /** Parts the service holds; only while the upload is incomplete. */
  partsDone?: number;
  /** True once the upload was completed (or the direct link handed over); false while a create that stopped half-way waits for the next update to resume it. */
  complete: boolean;
}

/** Fields that replace the source file when they change: the service cannot change an uploaded file. */
const REPLACE_ON = ["databaseId", "datasetId", "directLink", "sha1", "filename", "passwords", "custodian", "childCustodians"] as const;

const label = (s: { filename?: string; datasetId: number; path?: string }) =>
  `SourceFile '${s.filename ?? (s.path ? nodePath.basename(s.path) : "?")}' in dataset ${s.datasetId}`;

/** The user's message for an upload that stopped half-way: what was kept, and that the next update resumes it. */
function stoppedMessage(action: string, err: UploadError): string {
  return (
    `${action}: the upload stopped with ${err.partsDone} of ${err.partCount} parts on the service (source file ${err.sourceFileId}): ` +
    `${describeCause(err.cause)}. The parts sent are kept: the next update resumes source file ${err.sourceFileId} and sends only the missing parts.`
  );
}

/** Says progress at every 10% of a multi-part upload (shown while it runs, not kept in the Diagnostics). */
function progressLogger(what: string): (p: UploadProgress) => void {
  let logged = 0;
  return (p) => {
    if (p.partCount < 2 || p.totalBytes === 0) return;
    const decile = Math.floor((p.bytesSent / p.totalBytes) * 10);
    if (decile <= logged) return;
    logged = decile;
    say.progress(
      `${what}: ${decile * 10}% uploaded (${formatBytes(p.bytesSent)} of ${formatBytes(p.totalBytes)} bytes, ${p.partsDone} of ${p.partCount} parts)`,
    );
  };
}

function stateOf(
  inputs: CheckedInputs,
  result: Pick<UploadResult, "sourceFileId" | "state" | "size" | "sha1" | "partCount">,
): SourceFileState {
  return definedOnly({
    databaseId: inputs.databaseId,
    datasetId: inputs.datasetId,
    path: inputs.path,
    directLink: inputs.directLink,
    filename: inputs.filename,
    passwords: inputs.passwords,
    custodian: inputs.custodian,
    childCustodians: inputs.childCustodians,
    sourceFileId: result.sourceFileId,
    state: result.state,
    size: result.size,
    sha1: result.sha1,
    partCount: result.partCount,
    complete: true,
  });
}

/** What the engine keeps of a create that stopped half-way: enough to resume. */
function partialState(inputs: CheckedInputs, err: UploadError): SourceFileState {
  return definedOnly({
    databaseId: inputs.databaseId,
    datasetId: inputs.datasetId,
    path: inputs.path,
    filename: inputs.filename,
    passwords: inputs.passwords,
    custodian: inputs.custodian,
    childCustodians: inputs.childCustodians,
    sourceFileId: err.sourceFileId,
    state: "UPLOADING",
    size: inputs.size ?? null,
    sha1: inputs.sha1 ?? null,
    partCount: err.partCount,
    partsDone: err.partsDone,
    complete: false,
  });
}

/** The resume point of a path upload (resumePoint.ts); none for a direct link. */
function resumePointOf(op: Operation, inputs: CheckedInputs): ResumePoint | undefined {
  if (inputs.path === undefined || inputs.size === undefined || inputs.sha1 === undefined) return undefined;
  const { databaseId, datasetId, filename, size, sha1 } = inputs;
  return resumePointFor({ baseUrl: op.client.baseUrl, databaseId, datasetId, filename, size, sha1 }, op.run.folder);
}

/**
 * Uploads (or resumes) the inputs' file, keeping its resume point while it is unfinished; refuses
 * a file that changed size since the plan.
 */
async function upload(op: Operation, inputs: CheckedInputs, resumeId?: number, mark?: InFlightMark): Promise<UploadResult> {
  const { client } = op;
  const point = resumePointOf(op, inputs);
  if (inputs.path !== undefined && inputs.size !== undefined) {
    const size = fs.statSync(nodePath.resolve(inputs.path)).size;
    if (size !== inputs.size) {
      throw new Error(
        `${inputs.path} is now ${formatBytes(size)} bytes, not the ${formatBytes(inputs.size)} planned: it changed since the plan; run the update again`,
      );
    }
  }
  return uploadFile({
    client,
    databaseId: inputs.databaseId,
    datasetId: inputs.datasetId,
    path: inputs.path,
    directLink: inputs.directLink,
    filename: inputs.filename,
    passwords: inputs.passwords,
    custodian: inputs.custodian,
    childCustodians: inputs.childCustodians,
    partSize: inputs.partSize,
    concurrency: inputs.concurrency,
    expectedSha1: inputs.sha1,
    resume: resumeId !== undefined ? { sourceFileId: resumeId } : undefined,
    onSourceFile: (id) => {
      point?.save(id);
      mark?.clear(); // answered: the resume point (path uploads) or the state remembers it now
    },
    onProgress: progressLogger(label(inputs)),
    logger: debugLogger(op.run.settings()),
  }).then((result) => {
    point?.clear();
    return result;
  });
}

/** The in-flight mark of a source file's create (support/inFlight.ts). */
const markOf = (op: Operation, f: { databaseId: number; datasetId: number; filename: string }) =>
  inFlightMark(
    { baseUrl: op.client.baseUrl, kind: "SourceFile", databaseId: f.databaseId, datasetId: f.datasetId, name: f.filename },
    op.run.folder,
  );

/**
 * Takes over the source file a lost create made (adoptId): a path upload goes into it, sending
 * the parts it lacks (a wrong id fails there with the service's 404); a direct link's source file
 * is recorded as it is, since the service fetches the link itself.
 */
async function adopt(
  op: Operation,
  inputs: CheckedInputs,
  id: number,
  mark: InFlightMark,
  action: string,
  why = "adoptId",
): Promise<SourceFileState> {
  say.info(`${action}: took over source file ${id} (${why}) instead of creating one`);
  if (inputs.directLink !== undefined) {
    mark.made(id);
    return stateOf(inputs, { sourceFileId: id, state: "UPLOADING", size: null, sha1: null, partCount: 0 });
  }
  try {
    const result = await upload(op, inputs, id);
    mark.made(id);
    return stateOf(inputs, result);
  } catch (err) {
    if (err instanceof UploadError) throw new IncompleteCreate(stoppedMessage(action, err), partialState(inputs, err), { cause: err });
    throw err;
  }
}

/** True when an earlier source file cannot be resumed: gone (404), or no longer taking parts (400). */
function notResumable(err: unknown): boolean {
  const cause = err instanceof UploadError ? err.cause : err;
  return isStatus(cause, 404) || isStatus(cause, 400, "PostSourceFilePart") || isStatus(cause, 400, "GetSourceFileParts");
}

/** Plan-time checks of the file or the link; returns failures, or what check adds to the inputs. */
async function checkSource(
  inputs: Inputs,
  olds: Partial<CheckedInputs>,
): Promise<{ failures: CheckFailure[]; computed: Partial<CheckedInputs> }> {
  const failures: CheckFailure[] = [];
  const fail = (property: string, reason: string) => failures.push({ property, reason });
  const computed: Partial<CheckedInputs> = {};

  if (inputs.path !== undefined && inputs.path !== UNKNOWN) {
    const file = nodePath.resolve(inputs.path);
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      fail(
        "path",
        code === "ENOENT"
          ? `no file at ${file} (a relative path is read from the program's folder)`
          : `cannot be read: ${(err as Error).message}`,
      );
    }
    if (st && !st.isFile()) fail("path", `${file} is not a regular file`);
    if (st?.isFile()) {
      const partSize = inputs.partSize === (UNKNOWN as unknown) ? undefined : inputs.partSize;
      try {
        // Size and part count first: a file that cannot be sent is refused without being read.
        planParts(st.size, partSize);
        const stamp = fileStamp(file);
        const reuse = olds.path === inputs.path && olds.fileStamp === stamp && typeof olds.sha1 === "string";
        computed.sha1 = reuse ? olds.sha1 : await sha1OfFile(file);
        computed.size = st.size;
        computed.fileStamp = stamp;
      } catch (err) {
        if (err instanceof ParameterError) fail(err.parameter, err.rule);
        else fail("path", `cannot be read: ${(err as Error).message}`);
      }
    }
  }

  if (inputs.directLink !== undefined && inputs.directLink !== UNKNOWN) {
    try {
      checkDirectLink(inputs.directLink);
    } catch (err) {
      if (err instanceof ParameterError) fail(err.parameter, err.rule);
      else throw err;
    }
  }

  const sourceKnown = (inputs.path ?? inputs.directLink) !== UNKNOWN;
  if (inputs.filename === undefined && sourceKnown) {
    const name = defaultFilename(inputs);
    if (name) computed.filename = name;
    else if (inputs.directLink !== undefined)
      fail("filename", `is required: the link ${describeLink(inputs.directLink)} has no file name in its path`);
  }
  return { failures, computed };
}

/** The SourceFile implementation run by the plugin. */
export const sourceFile = defineResource<CheckedInputs, SourceFileState>({
  kind: "SourceFile",
  inputs: Inputs as z.ZodType<CheckedInputs>,
  outputs: outputsMatch<SourceFileState>()([
    "databaseId",
    "datasetId",
    "path",
    "directLink",
    "filename",
    "passwords",
    "custodian",
    "childCustodians",
    "sourceFileId",
    "state",
    "size",
    "sha1",
    "partCount",
    "partsDone",
    "complete",
  ]),
  label,
  idOf: (s) => String(s.sourceFileId),

  async check(inputs, olds) {
    const { failures, computed } = await checkSource(inputs, olds);
    return failures.length ? { failures } : { inputs: { ...inputs, ...computed } };
  },

  diff(olds, news, op) {
    // The state holds this source file now: a mark kept for it (PULUMI_SKIP_CHECKPOINTS) has done its job.
    markOf(op, olds).forgetMade(olds.sourceFileId);
    const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
    const replaces: string[] = REPLACE_ON.filter((f) => !same(olds[f], news[f]));
    // An unknown path (preview) may hold other content: say it may replace rather than guess.
    if (news.path === UNKNOWN) replaces.push("path");
    if (replaces.length > 0) return { changes: true, replaces };
    // An unfinished upload (a create that stopped half-way) is finished by update.
    if (!olds.complete) return { changes: true };
    // Same content at another path: only the recorded path changes. partSize and concurrency
    // only shape an upload, so once it is complete they are not compared.
    return { changes: !same(olds.path, news.path) };
  },

  async create(inputs, op) {
    const { action } = op;
    // A run killed half-way left a source file with some parts: resume it rather than start over.
    const earlier = resumePointOf(op, inputs)?.load();
    if (earlier !== undefined) {
      try {
        const result = await upload(op, inputs, earlier);
        say.info(
          `${action}: resumed source file ${earlier}, left unfinished by an earlier run (${result.partsReused} of ${result.partCount} parts were already there)`,
        );
        return stateOf(inputs, result);
      } catch (err) {
        if (!notResumable(err)) {
          if (err instanceof UploadError)
            throw new IncompleteCreate(stoppedMessage(action, err), partialState(inputs, err), { cause: err });
          throw err;
        }
        resumePointOf(op, inputs)?.clear();
        say.info(
          `${action}: source file ${earlier}, left unfinished by an earlier run, cannot be resumed (${describeCause(err instanceof UploadError ? err.cause : err)}); starting a new one`,
        );
      }
    }
    const mark = markOf(op, inputs);
    const made = mark.lost()?.madeId;
    if (inputs.adoptId !== undefined) {
      mark.clear(); // the user's word replaces whatever was remembered, even if the id proves wrong
      return adopt(op, inputs, inputs.adoptId, mark, action);
    }
    const lostState = "an earlier run created it but stopped before the engine wrote its state: PULUMI_SKIP_CHECKPOINTS";
    if (made !== undefined) return adopt(op, inputs, made, mark, action, lostState);
    // The API cannot list source files: an earlier create whose answer was lost can only be remembered.
    stopAfterLostCreate(
      mark,
      inputs,
      action,
      `source file '${inputs.filename}' in dataset ${inputs.datasetId} of database ${inputs.databaseId}`,
      "upload into that source file",
    );
    mark.mark();
    try {
      const result = await upload(op, inputs, undefined, mark);
      mark.made(result.sourceFileId);
      return stateOf(inputs, result);
    } catch (err) {
      if (err instanceof UploadError) throw new IncompleteCreate(stoppedMessage(action, err), partialState(inputs, err), { cause: err });
      if (answerLost(err) && (err as { operationId?: string }).operationId === "PostDatasetFile") {
        // Never sent again blindly: each call makes a source file, and the API can neither list nor delete one.
        throw new ResourceError(
          `${action}: ${describeCause(err)}. The service may have created a source file before its answer was lost; ` +
            `if so it stays empty (UPLOADING) in dataset ${inputs.datasetId}, since the API can neither list nor delete source files. ` +
            `The next up stops rather than create a second one: find its id in the web application and set adoptId to upload into it, ` +
            `or, if it is not there, set createAfterLostAnswer as that up's message says.`,
          { cause: err },
        );
      }
      mark.clear(); // failed before the source file existed, with an answer: nothing was made
      throw err;
    }
  },

  // No read endpoint: the state as uploaded is all there is to show.

  async update(olds, news, op) {
    // Same content (diff replaces otherwise): record the new path.
    if (olds.complete) return definedOnly({ ...olds, path: news.path });
    const sourceFileId = olds.sourceFileId;
    const action = `resuming ${label(news)} (source file ${sourceFileId})`;
    try {
      return stateOf(news, await upload(op, news, sourceFileId));
    } catch (err) {
      const cause = err instanceof UploadError ? err.cause : err;
      if (isStatus(cause, 404, "GetSourceFileParts")) {
        throw new ResourceError(
          `resuming ${label(news)}: source file ${sourceFileId} is no longer on the service (404), so it cannot be resumed; ` +
            `replace the resource (pulumi up --replace <urn>) to upload into a new source file`,
          { cause: err },
        );
      }
      throw new ResourceError(err instanceof UploadError ? stoppedMessage(action, err) : `${action}: ${describeCause(err)}`, {
        cause: err,
      });
    }
  },

  async delete(state, op) {
    markOf(op, state).forgetMade(state.sourceFileId);
    const what = `${label(state)} (source file ${state.sourceFileId})`;
    say.warn(
      state.complete === false
        ? `${what}: the upload was never completed; the service has no endpoint to delete a source file, so the parts sent stay until the service discards them.`
        : `${what}: the service has no endpoint to delete a source file; its documents stay in the database. Remove them in the web application if needed.`,
    );
  },
});

/**
 * One file uploaded into a dataset: from a local path (in parts, resumable) or from a direct
 * link the service fetches. A change of content or of any setting replaces it (the service
 * cannot change an uploaded file); destroying leaves the file on the service. A create is
 * remembered in `.reviewadmin/creates/` until the source file exists: after a lost answer the
 * next up stops, naming the file, until `adoptId` takes over the source file the lost create made
 * or `createAfterLostAnswer` confirms a new one.
 */
export interface SourceFile extends Outputs<SourceFileState> {}
export class SourceFile extends ReviewAdminResource {
  constructor(name: string, args: SourceFileArgs, opts?: pulumi.CustomResourceOptions) {
    // Encrypted in state even when given as plain strings (a pre-signed link's query is a
    // credential): the inputs are made secret, as Pulumi's generated SDKs do for secret
    // properties, and the outputs are listed in additionalSecretOutputs.
    const secrets: Partial<SourceFileArgs> = {};
    if (args.passwords !== undefined) secrets.passwords = secret(args.passwords);
    if (args.directLink !== undefined) secrets.directLink = secret(args.directLink);
    super(
      sourceFile.definition,
      name,
      { ...args, ...secrets },
      mergeOptions(opts, { additionalSecretOutputs: ["passwords", "directLink"] }),
    );
  }
}
