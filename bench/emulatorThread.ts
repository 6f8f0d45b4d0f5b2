/**
 * The emulator in a worker thread, driven over HTTP (the API and its control API). A benchmark
 * that runs a large Pulumi program under mocks in the main thread blocks that thread's event loop
 * for seconds at a time; an emulator sharing it would take the requests queued meanwhile all at
 * once and answer 429 to a client that paced them correctly. In a thread of its own, it sees them
 * when they arrive, as the service would.
 */
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { request, type Dispatcher } from "undici";
import { startEmulator, type EmulatorOptions } from "../emulator";

/** A running emulator thread. */
export interface EmulatorThread {
  url: string;
  keys: Record<string, string>;
  /** Sends a control-API request (`/_emulator<path>`) and returns the answer's `data`. */
  control<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** Stops the emulator and ends the thread. */
  close(): Promise<void>;
}

interface ThreadData {
  emulatorThread: EmulatorOptions;
}

/** Starts an emulator with `options` in a worker thread; resolves once it listens. */
export async function startEmulatorThread(options: EmulatorOptions): Promise<EmulatorThread> {
  const worker = new Worker(__filename, { workerData: { emulatorThread: options } satisfies ThreadData });
  const ready = await new Promise<{ url: string; keys: Record<string, string> }>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the emulator thread exited with code ${code} before listening`)));
  });
  const control = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    // A connection each (reset): a benchmark waits longer than the server keeps an idle one (a tsc
    // of the exported project), and a pooled socket the server closed failed the next call with
    // "other side closed".
    const res = await request(`${ready.url}/_emulator${path}`, {
      method: method as Dispatcher.HttpMethod,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      reset: true,
    });
    const text = await res.body.text();
    if (res.statusCode >= 400) throw new Error(`emulator control ${method} ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
    return (text ? (JSON.parse(text) as { data: T }).data : undefined) as T;
  };
  const close = async () => {
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.postMessage("close");
    await exited;
  };
  return { ...ready, control, close };
}

if (!isMainThread && (workerData as ThreadData | undefined)?.emulatorThread) {
  void startEmulator((workerData as ThreadData).emulatorThread).then((emu) => {
    parentPort!.postMessage({ url: emu.url, keys: emu.keys });
    parentPort!.once("message", () => {
      void emu.close().then(() => parentPort!.close());
    });
  });
}
