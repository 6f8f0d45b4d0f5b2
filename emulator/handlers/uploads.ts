/**
 * Native uploads: up1 PostDatabaseDataset, up2 PostDatasetFile, up3 PostSourceFilePart,
 * up4 GetSourceFileParts, up5 PostSourceFile. The rules are in ../model/uploadStore.ts; the part
 * PUT on the pre-authenticated URL that up3 hands out is served by ../partUpload.ts.
 *
 * Access (model/access.ts, canUpload): uploading is a database permission, so DB_UPLOAD or DB_ADMIN
 * on the database, or org admin of its owner where the database allows org admin access
 * (putting documents in is document access, which orgAdminAccess false withholds).
 */
import { canUpload } from "../model/access";
import { accessibleDatabase } from "./guards";
import type { DatabaseContext, HandlerGroup } from "./types";

/** Looks up the database and checks the caller may upload into it. */
function uploadAccess(ctx: DatabaseContext): number {
  return accessibleDatabase(ctx, canUpload).id;
}

/** up1 to up5 by operation id (handlers/index.ts merges the groups into the table). */
export const uploadHandlers = {
  /** up1: a dataset; 422 naming the limit when the database has its cap of datasets. */
  PostDatabaseDataset: (ctx) => {
    const databaseId = uploadAccess(ctx);
    return { data: ctx.store.uploads.createDataset(databaseId, ctx.body) };
  },

  /** up2: a source file, UPLOADING; with directLink the download starts at once. */
  PostDatasetFile: (ctx) => {
    const databaseId = uploadAccess(ctx);
    return { data: ctx.store.uploads.createSourceFile(databaseId, ctx.params.datasetId, ctx.body) };
  },

  /** up3: a pre-authenticated URL on this emulator for one part. */
  PostSourceFilePart: (ctx) => {
    const databaseId = uploadAccess(ctx);
    const { sourceFileId, partNumber } = ctx.params;
    return { data: ctx.store.uploads.partUrl(databaseId, sourceFileId, partNumber, ctx.baseUrl) };
  },

  /** up4: the parts received so far, to resume an upload. */
  GetSourceFileParts: (ctx) => {
    const databaseId = uploadAccess(ctx);
    return { data: ctx.store.uploads.listParts(databaseId, ctx.params.sourceFileId) };
  },

  /** up5: assemble the parts (ETags in part order, optional SHA1) and start processing. */
  PostSourceFile: async (ctx) => {
    const databaseId = uploadAccess(ctx);
    return { data: await ctx.store.uploads.complete(databaseId, ctx.params.sourceFileId, ctx.body) };
  },
} satisfies HandlerGroup;
