/**
 * Helpers for the emulator tests: `useEmulator` starts one emulator per file or describe block,
 * and `api`/`control` are plain-fetch calls that show raw statuses, headers and bodies, which
 * the project client (rightly) turns into errors and retries.
 */
import { afterAll, beforeAll } from "vitest";
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../../emulator";

/**
 * Starts an emulator before the tests of the enclosing file or describe block and closes it
 * after them (rate limits off unless `options` says otherwise). The value returned stands for
 * the running emulator; read it inside tests and hooks only, once it has started.
 */
export function useEmulator(options: EmulatorOptions = {}): RunningEmulator {
  let running: RunningEmulator | undefined;
  beforeAll(async () => {
    running = await startEmulator({ rateLimit: 0, ...options });
  });
  afterAll(() => running?.close());
  return new Proxy({} as RunningEmulator, {
    get(_target, property) {
      if (!running) throw new Error("the emulator starts in beforeAll: use it inside a test or a hook");
      return Reflect.get(running, property, running);
    },
  });
}

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

/**
 * Sends one API request with `Authorization: Bearer <key>` (no header when key is undefined).
 * `path` may be a full URL (a links.next); a FormData body goes as multipart, a string as is,
 * anything else as JSON.
 */
export async function api(baseUrl: string, key: string | undefined, method: string, path: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  const multipart = body instanceof FormData;
  if (body !== undefined && !multipart) headers["content-type"] = "application/json";
  const payload = body === undefined || multipart || typeof body === "string" ? body : JSON.stringify(body);
  const res = await fetch(/^https?:/.test(path) ? path : baseUrl + path, { method, headers, body: payload as RequestInit["body"] });
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
