/**
 * Dataset: a native-upload dataset (up1, PostDatabaseDataset).
 *
 * Settings the spec names but whose request field names it does not show are passed through
 * under the camelCase names below (deNIST, pdfCreation, emailInlineImages, ocrLanguage,
 * defaultPdfPageSize, chatSegmentation, emailHyperlinkedImages, chatAttachmentFetching,
 * presentationSpeakerNotes, partialProjectIds, defaultCustodian). Their option names are not shown
 * either (only NONE for deduplication), so they are free strings; what is known is checked at plan
 * time: the timezone is a real IANA name, the OCR language is 'auto' or a 3-letter ISO 639-3 code.
 */
import type * as pulumi from "@pulumi/pulumi";
import { say } from "./support/messages";
import { z } from "zod";
import type { CreateDatasetRequest } from "../../contract/types";
import { answerLost, describeCause, ResourceError } from "../failures";
import { definedOnly } from "../util";
import { inFlightMark, stopAfterLostCreate } from "./support/inFlight";
import { DatabaseId, idInput, Name } from "./support/inputs";
import { argsMatch, defineResource, outputsMatch, stateHolds, type Operation } from "./support/lifecycle";
import { sortedSet } from "../normalize";
import { ReviewAdminResource, type Outputs } from "./support/resourceClass";

/** Inputs of a Dataset. Every change replaces the dataset (the service cannot change one). */
export interface DatasetArgs {
  /** The database the dataset belongs to. */
  databaseId: pulumi.Input<number>;
  name: pulumi.Input<string>;
  description?: pulumi.Input<string>;
  /** Exact-duplicate handling, e.g. "NONE" (the spec shows no other option name). */
  deduplication?: pulumi.Input<string>;
  /** IANA time zone name, e.g. "Europe/Paris", assumed for dates without a zone. Checked at plan time. */
  timezone?: pulumi.Input<string>;
  /** Remove known software files (public reference hash list). Passed through as `deNIST`. */
  deNIST?: pulumi.Input<boolean>;
  /** Which document types get PDFs (three options, names not shown). Passed through as `pdfCreation`. */
  pdfCreation?: pulumi.Input<string>;
  /** How and when images are inlined into email bodies (three options). Passed through as `emailInlineImages`. */
  emailInlineImages?: pulumi.Input<string>;
  /** OCR language: "auto" (the service's default) or an ISO 639-3 code such as "deu". Passed through as `ocrLanguage`. */
  ocrLanguage?: pulumi.Input<string>;
  /** Default PDF page size (two options). Passed through as `defaultPdfPageSize`. */
  defaultPdfPageSize?: pulumi.Input<string>;
  /** How chat conversations are split into chat documents. Passed through as `chatSegmentation`. */
  chatSegmentation?: pulumi.Input<string>;
  /** Fetch and show hyperlinked images in email bodies. Passed through as `emailHyperlinkedImages`. */
  emailHyperlinkedImages?: pulumi.Input<boolean>;
  /** Fetch attachments of chat-export messages. Passed through as `chatAttachmentFetching`. */
  chatAttachmentFetching?: pulumi.Input<boolean>;
  /** Presentation speaker notes in PDF and text files (three options). Passed through as `presentationSpeakerNotes`. */
  presentationSpeakerNotes?: pulumi.Input<string>;
  /** Ids of the partial projects the uploads are included in. Passed through as `partialProjectIds`. */
  partialProjectIds?: pulumi.Input<pulumi.Input<number>[]>;
  /** Custodian applied to every file of the dataset. Passed through as `defaultCustodian`. */
  defaultCustodian?: pulumi.Input<string>;
  /**
   * After a create whose answer was lost: the id of the dataset it made (found in the web
   * application), taken over instead of creating one. Only read at create; never a change.
   */
  adoptId?: pulumi.Input<number>;
  /**
   * After a create whose answer was lost and whose dataset is not there: the time that create was
   * sent, as the error names it, to confirm creating the dataset anew. Only read at create; never a change.
   */
  createAfterLostAnswer?: pulumi.Input<string>;
}

const option = z.string().min(1, { message: "must not be empty" });

/** True for a name the runtime's time zone database knows, spelled as IANA spells it. */
function timezoneProblem(tz: string): string | undefined {
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat("en-US", { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return `'${tz}' is not an IANA time zone name (for example Europe/Paris or America/New_York)`;
  }
  if (/^[+-]/.test(tz)) return `must be an IANA time zone name, not a UTC offset (got ${tz})`;
  // Every IANA name's segments start with a capital (Etc/UTC, America/Port-au-Prince, EST5EDT).
  if (!/^[A-Z][^/]*(\/[A-Z][^/]*)*$/.test(tz)) return `must be spelled as in the IANA database (did you mean ${resolved}?)`;
  return undefined;
}

const Inputs = z.strictObject({
  databaseId: DatabaseId,
  name: Name.min(1, { message: "must not be empty" }),
  description: z.string().optional(),
  deduplication: option.optional(),
  timezone: z
    .string()
    .superRefine((tz, ctx) => {
      const problem = timezoneProblem(tz);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .optional(),
  deNIST: z.boolean().optional(),
  pdfCreation: option.optional(),
  emailInlineImages: option.optional(),
  ocrLanguage: z
    .string()
    .regex(/^(auto|[a-z]{3})$/, { message: "must be 'auto' or an ISO 639-3 code of three lower-case letters (e.g. deu, jpn)" })
    .optional(),
  defaultPdfPageSize: option.optional(),
  chatSegmentation: option.optional(),
  emailHyperlinkedImages: z.boolean().optional(),
  chatAttachmentFetching: z.boolean().optional(),
  presentationSpeakerNotes: option.optional(),
  partialProjectIds: z
    .array(z.number().int().positive({ message: "must be a positive integer project id" }))
    .transform((ids) => sortedSet(ids))
    .optional(),
  defaultCustodian: option.optional(),
  adoptId: idInput("dataset").optional(),
  createAfterLostAnswer: z.string().min(1, { message: "must not be empty" }).optional(),
});
type Inputs = z.infer<typeof Inputs>;
argsMatch<DatasetArgs, z.input<typeof Inputs>>(true);

/** How to proceed after a lost create: read at create only, so never a change. */
const AFTER_LOST = ["adoptId", "createAfterLostAnswer"] as const;

/** Every setting; all of them replace when they change. */
const SETTINGS = (Object.keys(Inputs.shape) as (keyof Inputs)[]).filter((k) => !(AFTER_LOST as readonly string[]).includes(k));

/** What a Dataset stores: its settings as created (see DatasetArgs), and its id. */
export interface DatasetState {
  databaseId: number;
  name: string;
  description?: string;
  deduplication?: string;
  timezone?: string;
  deNIST?: boolean;
  pdfCreation?: string;
  emailInlineImages?: string;
  ocrLanguage?: string;
  defaultPdfPageSize?: string;
  chatSegmentation?: string;
  emailHyperlinkedImages?: boolean;
  chatAttachmentFetching?: boolean;
  presentationSpeakerNotes?: string;
  /** Sorted. */
  partialProjectIds?: number[];
  defaultCustodian?: string;
  /** The dataset taken over after a lost create (absent for a dataset this resource created). */
  adoptId?: number;
  /** The lost create confirmed when this dataset was created anew. */
  createAfterLostAnswer?: string;
  /** The dataset's id as a number, for SourceFile.datasetId (the resource id is the same, as a string). */
  datasetId: number;
}
stateHolds<DatasetState, Inputs>(true);

const label = (s: { databaseId: number; name: string }) => `Dataset '${s.name}' in database ${s.databaseId}`;

/** The in-flight mark of a dataset's create (support/inFlight.ts). */
const markOf = (op: Operation, d: { databaseId: number; name: string }) =>
  inFlightMark({ baseUrl: op.client.baseUrl, kind: "Dataset", databaseId: d.databaseId, name: d.name }, op.run.folder);

/** The up1 body: the four fields the spec shows, and the other settings passed through. */
function requestOf(inputs: Inputs): CreateDatasetRequest {
  const { databaseId: _db, adoptId: _adopt, createAfterLostAnswer: _confirm, ...settings } = inputs;
  return definedOnly(settings) as CreateDatasetRequest;
}

/** The Dataset implementation run by the plugin. */
export const dataset = defineResource<Inputs, DatasetState>({
  kind: "Dataset",
  inputs: Inputs,
  outputs: outputsMatch<DatasetState>()([...SETTINGS, ...AFTER_LOST, "datasetId"]),
  label,
  idOf: (s) => String(s.datasetId),

  diff(olds, news, op) {
    // The state holds this dataset now: a mark kept for it (PULUMI_SKIP_CHECKPOINTS) has done its job.
    markOf(op, olds).forgetMade(olds.datasetId);
    // No update endpoint: every change replaces. A setting removed from the program is a change too.
    // A preview unknown differs from any stored value, so it shows as a (possible) replacement.
    const changed = SETTINGS.filter((f) => JSON.stringify(olds[f] ?? null) !== JSON.stringify(news[f] ?? null));
    return changed.length === 0 ? { changes: false } : { changes: true, replaces: changed };
  },

  async create(inputs, op) {
    const { client, action } = op;
    const what = `dataset '${inputs.name}' in database ${inputs.databaseId}`;
    const mark = markOf(op, inputs);
    const made = mark.lost()?.madeId;
    if (made !== undefined && inputs.adoptId === undefined) {
      say.info(
        `${action}: took over dataset ${made}, which an earlier run created but stopped before the engine wrote its state (PULUMI_SKIP_CHECKPOINTS), instead of creating a second one`,
      );
      mark.made(made);
      return definedOnly({ ...inputs, datasetId: made });
    }
    if (inputs.adoptId !== undefined) {
      // The API cannot read a dataset: the id is taken on the user's word, from the web application.
      say.info(`${action}: took over dataset ${inputs.adoptId} (adoptId) instead of creating one`);
      mark.clear();
      return definedOnly({ ...inputs, datasetId: inputs.adoptId });
    }
    // The API cannot list datasets: an earlier create whose answer was lost can only be remembered.
    stopAfterLostCreate(mark, inputs, action, what, "take that dataset over");
    mark.mark();
    const created = await client.call("PostDatabaseDataset", { databaseId: inputs.databaseId }, requestOf(inputs)).catch((err) => {
      if (!answerLost(err)) {
        mark.clear(); // refused: nothing was made
        throw err;
      }
      // Never sent again blindly: a second dataset would count against the database's cap.
      throw new ResourceError(
        `${action}: ${describeCause(err)}. The service may have created the dataset before its answer was lost, and the API cannot list datasets, ` +
          `so the next up stops rather than create a second one: look for '${inputs.name}' in database ${inputs.databaseId} in the web application, ` +
          `then set adoptId to its id, or, if it is not there, set createAfterLostAnswer as that up's message says`,
        { cause: err },
      );
    });
    mark.made(created.id);
    // The inputs as given (not the name as echoed), so the next diff compares like with like.
    return definedOnly({ ...inputs, datasetId: created.id });
  },

  // No read and no update: the service has neither, and every change replaces.

  async delete(state, op) {
    markOf(op, state).forgetMade(state.datasetId);
    say.warn(
      `${label(state)} (dataset ${state.datasetId}): the service has no endpoint to delete a dataset; it stays in the database with its source files. ` +
        `Remove it in the web application if needed.`,
    );
  },
});

/**
 * A native-upload dataset: the processing settings its source files share. The service
 * can neither read, change nor delete a dataset: refresh keeps the settings as created, a change
 * of any setting creates a new dataset (which counts against the database's dataset cap), and
 * destroying leaves the dataset in place with a warning. A create is remembered in
 * `.reviewadmin/creates/` until its answer arrives: after a lost answer the next up stops, naming
 * the dataset, until `adoptId` takes over the dataset the lost create made or
 * `createAfterLostAnswer` confirms a new create.
 */
export interface Dataset extends Outputs<DatasetState> {}
export class Dataset extends ReviewAdminResource {
  constructor(name: string, args: DatasetArgs, opts?: pulumi.CustomResourceOptions) {
    super(dataset.definition, name, args, opts);
  }
}
