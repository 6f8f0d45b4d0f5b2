/**
 * A real node:http server on 127.0.0.1 (port 0) that answers from a script: a queue of expected
 * requests, each with its answer. It fails loudly: a request nobody expected, or one that does
 * not match the head of the queue, is answered 599 and recorded in `errors`, which every test
 * asserts empty (with `pending` zero) when it ends.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, expect } from "vitest";

/** A request as the server saw it; `at` is the server's `now()` on arrival. */
export interface Received {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  at: number;
}

/** How to answer: a status with a JSON or text body, a dropped connection, or silence. */
export type Reply = { status: number; json?: unknown; text?: string; headers?: Record<string, string> } | { reset: true } | { hang: true };

/** One expected request and its answer (or a function of the request making the answer). */
export interface Expectation {
  method: string;
  path: string;
  reply: Reply | ((req: Received) => Reply);
}

export class ScriptedServer {
  /** Every request that arrived, in arrival order. */
  readonly received: Received[] = [];
  /** One line per request that was not expected; a test passes only if this stays empty. */
  readonly errors: string[] = [];
  /** Stamps arrivals (`Received.at`): performance.now() unless a test sets its manual clock; reset() restores it. */
  now: () => number = () => performance.now();
  readonly #queue: Expectation[] = [];
  readonly #server: http.Server;

  private constructor() {
    this.#server = http.createServer((req, res) => this.#handle(req, res));
  }

  /** Starts a server on 127.0.0.1, on a free port. */
  static async start(): Promise<ScriptedServer> {
    const s = new ScriptedServer();
    await new Promise<void>((resolve) => s.#server.listen(0, "127.0.0.1", resolve));
    return s;
  }

  /** http://127.0.0.1:<port>, no trailing slash. */
  get url(): string {
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** Expected requests not yet seen. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Appends expectations to the script, in the order the requests must arrive. */
  expect(...expectations: Expectation[]): this {
    this.#queue.push(...expectations);
    return this;
  }

  /** Shorthand: the same request expected `times` times, each answered by `reply`. */
  expectTimes(times: number, expectation: Expectation): this {
    for (let i = 0; i < times; i++) this.#queue.push(expectation);
    return this;
  }

  /** Clears the script and the records, between tests. */
  reset(): void {
    this.#queue.length = 0;
    this.received.length = 0;
    this.errors.length = 0;
    this.now = () => performance.now();
  }

  /** Stops the server and drops every connection (including hanging requests). */
  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const received: Received = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: this.now(),
      };
      this.received.push(received);
      const next = this.#queue[0];
      if (!next || next.method !== received.method || next.path !== received.path) {
        const wanted = next ? `${next.method} ${next.path}` : "nothing";
        this.errors.push(`unexpected ${received.method} ${received.path} (expected ${wanted})`);
        res.writeHead(599, { "content-type": "application/json" });
        res.end(JSON.stringify({ title: "unexpected request in test", status: 599 }));
        return;
      }
      this.#queue.shift();
      const reply = typeof next.reply === "function" ? next.reply(received) : next.reply;
      if ("reset" in reply) {
        req.socket.destroy();
        return;
      }
      if ("hang" in reply) return; // closed by close() or by the client giving up
      const headers: Record<string, string> = { ...reply.headers };
      let body = "";
      if (reply.json !== undefined) {
        headers["content-type"] ??= "application/json";
        body = JSON.stringify(reply.json);
      } else if (reply.text !== undefined) {
        body = reply.text;
      }
      res.writeHead(reply.status, headers);
      res.end(body);
    });
  }
}

/**
 * One server for the calling test file. After each test it checks that the script was followed
 * exactly (no unexpected request, no expected one missing), then resets it.
 */
export function useScriptedServer(): { readonly server: ScriptedServer } {
  let server: ScriptedServer | undefined;
  beforeAll(async () => {
    server = await ScriptedServer.start();
  });
  afterEach(() => {
    const errors = [...server!.errors];
    const pending = server!.pending;
    server!.reset();
    expect(errors, "requests the script did not expect").toEqual([]);
    expect(pending, "expected requests that never came").toBe(0);
  });
  afterAll(async () => {
    await server?.close();
  });
  return {
    get server() {
      return server!;
    },
  };
}
