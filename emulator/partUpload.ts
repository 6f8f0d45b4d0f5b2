/**
 * The part PUT: the HTTP side of the pre-authenticated part URLs that up3 hands out,
 * `${baseUrl}/_upload/<token>`. They are not API routes: no key (the token is the credential),
 * no envelope, and the body is streamed to disk rather than read whole, so server.ts sends
 * every path under PART_UPLOAD_PREFIX here before authentication and body parsing. The upload
 * rules are the model's (model/uploadStore.ts, receivePart).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { isClientGone, MethodNotAllowed, toErrorResponse } from "./errors";
import type { Store } from "./model/store";
import { PART_UPLOAD_PREFIX } from "./model/uploadStore";

/** The name part uploads carry in the request log and in fault `operations`. */
export const PART_UPLOAD_OPERATION = "PutSourceFilePart";

/**
 * Serves one PUT to a part URL and writes the whole answer: 200 with the part's ETag, or the
 * emulator's error shape (404 unknown URL, 400 file no longer uploading or part over 5GB, 405
 * not a PUT), closing the connection since the rest of a refused body is not read. Resolves to
 * the status answered, or 0 when the client went away mid-body (the part is dropped, quietly).
 */
export async function handlePartUpload(req: IncomingMessage, res: ServerResponse, store: Store): Promise<number> {
  try {
    if (req.method !== "PUT") throw new MethodNotAllowed(`part URLs take PUT, not ${req.method}`);
    const pathname = new URL(req.url ?? "/", "http://emulator").pathname;
    const token = pathname.slice(PART_UPLOAD_PREFIX.length);
    const { etag } = await store.uploads.receivePart(token, req);
    res.writeHead(200, { etag, "content-length": "0" });
    res.end();
    return 200;
  } catch (err) {
    if (isClientGone(err)) {
      req.socket.destroy();
      return 0;
    }
    const { status, body, headers } = toErrorResponse(err);
    const text = JSON.stringify(body);
    if (!res.headersSent && !res.destroyed) {
      res.writeHead(status, {
        ...headers,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(text)),
        connection: "close",
      });
      res.end(text);
    }
    req.resume();
    return status;
  }
}
