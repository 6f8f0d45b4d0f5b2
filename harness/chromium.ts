/**
 * Headless Chromium over the Chrome DevTools protocol, for the tests and benchmarks that open a
 * page the project writes (review.html): load a file, wait for its load event, evaluate an
 * expression in it, take a screenshot. One browser process per `openChromium`, its profile in a
 * temporary folder removed at close; the protocol over Node's own WebSocket, so no dependency.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";

/** Where Chromium is looked for: $CHROMIUM, then these names on PATH. */
const NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/** The Chromium binary to run ($CHROMIUM when set, else the first of the usual names on PATH), or undefined when there is none. */
export function findChromium(): string | undefined {
  // Set, it is the one: a path that is not there means no Chromium, not another one.
  if (process.env.CHROMIUM) return fs.existsSync(process.env.CHROMIUM) ? process.env.CHROMIUM : undefined;
  for (const name of NAMES) {
    const found = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
    if (found.status === 0 && found.stdout.trim()) return found.stdout.trim();
  }
  return undefined;
}

/** What a page's load took, in this process's clock: from asking for it to finding it complete (to within 10 ms). */
export interface Loaded {
  wallMs: number;
}

/** A page of a running headless Chromium. */
export interface ChromiumPage {
  /** Navigates to `url` and resolves once the page is complete (its load event fired, its inline scripts have run). */
  goto(url: string): Promise<Loaded>;
  /** The value of `expression` evaluated in the page (awaited when a promise), as JSON would carry it. */
  evaluate<T = unknown>(expression: string): Promise<T>;
  /** Writes a PNG of the viewport, or of the whole page with `fullPage`, to `file`. */
  screenshot(file: string, opts?: { fullPage?: boolean }): Promise<void>;
  /** Saves what the page downloads (a link with a download name) into `folder`, under the names it gives. */
  downloadTo(folder: string): Promise<void>;
  /** Ends the browser and removes its profile. */
  close(): Promise<void>;
}

type Message = { id?: number; result?: any; error?: { message: string } };

/** Starts headless Chromium (`binary`, default findChromium()) at a window of `width` x `height` and opens one page. */
export async function openChromium(opts: { binary?: string; width?: number; height?: number } = {}): Promise<ChromiumPage> {
  const binary = opts.binary ?? findChromium();
  if (!binary) throw new Error(`no Chromium found: install it (Debian: apt-get install -y chromium) or set CHROMIUM to its path`);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "reviewadmin-chromium-"));
  const child = spawn(
    binary,
    [
      "--headless=new",
      "--disable-gpu",
      "--no-sandbox",
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-extensions",
      "--remote-debugging-port=0",
      // performance.memory to the byte, not in coarse buckets: the benchmark reports the page's heap.
      "--enable-precise-memory-info",
      `--user-data-dir=${profile}`,
      `--window-size=${opts.width ?? 1400},${opts.height ?? 1000}`,
      "about:blank",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let socket: WebSocket | undefined;
  try {
    const wsUrl = await devtoolsUrl(child);
    socket = await connect(wsUrl);
    return await pageOf(socket, child, profile, opts);
  } catch (err) {
    socket?.close();
    await stop(child, profile);
    throw err;
  }
}

/** The browser's DevTools address, from the line Chromium prints on stderr when it listens. */
function devtoolsUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let err = "";
    const timer = setTimeout(() => reject(new Error(`Chromium did not start within 30 s: ${err.slice(-500)}`)), 30_000);
    child.stderr!.on("data", (d: Buffer) => {
      err += d.toString("utf8");
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`Chromium exited with code ${code} before listening: ${err.slice(-500)}`));
    });
  });
}

function connect(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.addEventListener("open", () => resolve(ws), { once: true });
    ws.addEventListener("error", () => reject(new Error(`cannot connect to Chromium at ${url}`)), { once: true });
  });
}

async function stop(child: ChildProcess, profile: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
  fs.rmSync(profile, { recursive: true, force: true });
}

/** A page target attached in flat mode: every command goes over the browser's one socket with the page's session id. */
async function pageOf(
  socket: WebSocket,
  child: ChildProcess,
  profile: string,
  opts: { width?: number; height?: number },
): Promise<ChromiumPage> {
  let next = 0;
  const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  socket.addEventListener("message", (ev) => {
    const msg = JSON.parse(String(ev.data)) as Message;
    if (msg.id !== undefined) {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) p?.reject(new Error(`Chromium: ${msg.error.message}`));
      else p?.resolve(msg.result);
    }
  });
  const send = (method: string, params: object = {}, sessionId?: string): Promise<any> =>
    new Promise((resolve, reject) => {
      const id = ++next;
      pending.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });

  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
  await send("Page.enable", {}, sessionId);
  await send("Runtime.enable", {}, sessionId);
  await send(
    "Emulation.setDeviceMetricsOverride",
    { width: opts.width ?? 1400, height: opts.height ?? 1000, deviceScaleFactor: 1, mobile: false },
    sessionId,
  );

  const evaluate = async <T>(expression: string): Promise<T> => {
    const r = await send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true }, sessionId);
    if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value as T;
  };
  /** Navigates and waits until the page at `url` is complete (its load event has fired, its inline scripts have run). */
  const navigate = async (url: string) => {
    const nav = await send("Page.navigate", { url }, sessionId);
    if (nav.errorText) throw new Error(`Chromium cannot open ${url}: ${nav.errorText}`);
    const until = performance.now() + 120_000;
    for (;;) {
      const state = await evaluate<{ href: string; ready: string }>("({ href: location.href, ready: document.readyState })");
      if (state.href === url && state.ready === "complete") return;
      if (performance.now() > until)
        throw new Error(`Chromium did not finish loading ${url} within 120 s (at ${state.href}, ${state.ready})`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return {
    async goto(url) {
      // Through about:blank: a URL that differs from the page's only by its #fragment would not load the page again.
      await navigate("about:blank");
      const t0 = performance.now();
      await navigate(url);
      return { wallMs: performance.now() - t0 };
    },
    evaluate,
    async screenshot(file, o = {}) {
      const r = await send("Page.captureScreenshot", { format: "png", captureBeyondViewport: o.fullPage === true }, sessionId);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, Buffer.from(r.data as string, "base64"));
    },
    async downloadTo(folder) {
      fs.mkdirSync(folder, { recursive: true });
      await send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: folder });
    },
    async close() {
      try {
        await Promise.race([send("Browser.close"), new Promise((resolve) => setTimeout(resolve, 2_000))]);
      } catch {
        // Closing anyway.
      }
      socket.close();
      await stop(child, profile);
    },
  };
}
