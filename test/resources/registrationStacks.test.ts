/**
 * What a program pays to register a resource: the SDK stores a stack on every promise it makes
 * (four per output property), read only when PULUMI_DEBUG_PROMISE_LEAKS is set; the classes turn
 * stack capture off while the SDK registers them (resourceClass.ts quietStacks). Counted here, not
 * timed: the stack frames V8 hands to Error.prepareStackTrace while resources are constructed.
 */
import * as pulumi from "@pulumi/pulumi";
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as reviewadmin from "../../provider";

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
      call: (args) => args.inputs,
    },
    "stacks",
    "test",
    false,
  );
});

/** Frames formatted while `build` runs, and how many stacks had any. */
function framesWhile(build: () => void): { frames: number; stacks: number } {
  const original = Error.prepareStackTrace;
  let frames = 0;
  let stacks = 0;
  Error.prepareStackTrace = (err, sites) => {
    frames += sites.length;
    if (sites.length) stacks++;
    return original ? original(err, sites) : `${String(err)}\n${sites.map((s) => `    at ${String(s)}`).join("\n")}`;
  };
  try {
    build();
  } finally {
    Error.prepareStackTrace = original;
  }
  return { frames, stacks };
}

const build = (n: number, tag: string) => () => {
  for (let i = 0; i < n; i++) {
    new reviewadmin.OrgMember(`${tag}-${i}`, { organizationId: 102, email: `p${i}.${tag}@northwind.example` });
    new reviewadmin.DatabaseUsers(`${tag}-db-${i}`, {
      databaseId: 2001 + i,
      mode: "authoritative",
      users: { 1005: { permissions: ["DB_UPLOAD"] } },
    });
  }
};

describe("registering a resource", () => {
  const limit = Error.stackTraceLimit;
  afterAll(() => {
    delete process.env.PULUMI_DEBUG_PROMISE_LEAKS;
  });

  it("formats one stack per resource (the SDK's source position), not one per promise, and restores the limit", () => {
    const quiet = framesWhile(build(10, "quiet"));
    expect(Error.stackTraceLimit).toBe(limit);
    // The SDK reads each resource's source position once, with its own unlimited stack.
    expect(quiet.stacks).toBeLessThanOrEqual(20);

    // With the SDK's leak debugging asked for, every promise keeps its stack as before.
    process.env.PULUMI_DEBUG_PROMISE_LEAKS = "1";
    const debugging = framesWhile(build(10, "debug"));
    expect(Error.stackTraceLimit).toBe(limit);
    expect(debugging.stacks).toBeGreaterThan(quiet.stacks * 10);
  });

  it("keeps the source position the SDK reports for the resource", async () => {
    delete process.env.PULUMI_DEBUG_PROMISE_LEAKS;
    const positions: string[] = [];
    const original = Error.prepareStackTrace;
    Error.prepareStackTrace = (err, sites) => {
      if (sites.length > 10) positions.push(sites.map((s) => s.getFileName() ?? "").join("\n"));
      return original ? original(err, sites) : String(err);
    };
    try {
      new reviewadmin.OrgMember("positioned", { organizationId: 102, email: "positioned@northwind.example" });
    } finally {
      Error.prepareStackTrace = original;
    }
    expect(positions.some((p) => p.includes("registrationStacks.test.ts"))).toBe(true);
  });
});

describe("what a program loads with the package", () => {
  // @pulumi/pulumi's index also loads its Automation API and, through closure serialization,
  // TypeScript: 0.6 s of a program's start before its first resource reaches the engine. The
  // package takes each value from the SDK's own module (eslint keeps it so); counted, not timed.
  // undici (0.13 s) waits for the first request, in the program and in the plugin (runtime.js).
  it("loads neither TypeScript nor the Automation API nor the SDK's index, nor undici before a request", () => {
    const dist = path.join(__dirname, "../../dist/provider");
    const script = `const count = () => { const loaded = Object.keys(require.cache);
        return ["/node_modules/typescript/", "/@pulumi/pulumi/automation/", "/@pulumi/pulumi/index.js", "/@pulumi/pulumi/resource.js", "/node_modules/undici/"]
          .map((part) => loaded.filter((f) => f.includes(part)).length); };
      require(${JSON.stringify(path.join(dist, "index.js"))});
      require(${JSON.stringify(path.join(dist, "runtime.js"))});
      // A no-change run's diff makes a client and sends nothing.
      const { ReviewAdminClient } = require(${JSON.stringify(path.join(dist, "client/client.js"))});
      new ReviewAdminClient({ baseUrl: "http://127.0.0.1:9", apiKey: "ra_test_${"k".repeat(32)}" });
      const before = count();
      require(${JSON.stringify(path.join(dist, "client/transport.js"))}).acquirePool("http://127.0.0.1:9");
      console.log(JSON.stringify({ before, after: count() }));`;
    const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    const { before, after } = JSON.parse(r.stdout) as { before: number[]; after: number[] };
    const [typescript, automation, index, resource, undici] = before;
    expect({ typescript, automation, index, undici }).toEqual({ typescript: 0, automation: 0, index: 0, undici: 0 });
    // The counts are real: the SDK's resource module is loaded, and undici once a pool is made.
    expect(resource).toBe(1);
    expect(after[4]).toBeGreaterThan(0);
  });
});
