/**
 * Plain-fetch helpers for the emulator tests: they show raw statuses, headers and bodies, which
 * the project client (rightly) turns into errors and retries.
 */

/** One answer: status, parsed JSON body (undefined when empty) and headers. */
export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** Sends one API request with `Authorization: Bearer <key>` (no header when key is undefined). */
export async function api(baseUrl: string, key: string | undefined, method: string, path: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(baseUrl + path, { method, headers, body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) });
  return answer(res);
}

/** Sends one control-API request (no key). */
export async function control(baseUrl: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${baseUrl}/_emulator${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return answer(res);
}
