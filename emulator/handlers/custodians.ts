/**
 * E5 PostDirectoryCustodians: sync a legal-hold custodian directory from a CSV sent as the
 * multipart form field `file`. The CSV rules are contract/custodianCsv.ts, the same code the
 * provider runs at plan time; a broken rule is a 400 whose title names the row and the rule. The
 * sync itself is the model's (model/directories.ts, syncCustodians).
 */
import { CustodianCsvError, parseCustodianCsv } from "../../contract/custodianCsv";
import { BadRequest } from "../errors";
import { canSyncCustodians } from "../model/access";
import { demandAccess } from "./guards";
import type { HandlerGroup } from "./types";

/** Reads the `file` field of a multipart/form-data body as bytes. */
async function formFile(rawBody: Buffer, contentType: string | undefined): Promise<Uint8Array> {
  if (!contentType || !/^multipart\/form-data\b/i.test(contentType)) {
    throw new BadRequest("body", "must be multipart/form-data with the CSV in a field named file");
  }
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(rawBody), { headers: { "content-type": contentType } }).formData();
  } catch {
    throw new BadRequest("body", "is not a well-formed multipart/form-data body");
  }
  const file = form.get("file");
  if (file === null) throw new BadRequest("file", "is required: send the CSV as the form field named file");
  return typeof file === "string" ? Buffer.from(file, "utf8") : new Uint8Array(await file.arrayBuffer());
}

/** E5 by operation id (handlers/index.ts merges the groups into the table). */
export const custodianHandlers = {
  /** E5: org admin or legal hold org admin of the directory's owning organization. */
  PostDirectoryCustodians: async (ctx) => {
    const { store, caller, params, rawBody, req } = ctx;
    const directory = store.directories.get(params.directoryId);
    demandAccess(ctx, canSyncCustodians(store, caller, directory.organizationId));
    const bytes = await formFile(rawBody ?? Buffer.alloc(0), req.headers["content-type"]);
    let parsed;
    try {
      parsed = parseCustodianCsv(bytes);
    } catch (err) {
      if (err instanceof CustodianCsvError) throw new BadRequest("file", err.message);
      throw err;
    }
    store.directories.syncCustodians(directory.id, parsed, caller.userId);
    return { data: { custodians: parsed.ignored } };
  },
} satisfies HandlerGroup;
