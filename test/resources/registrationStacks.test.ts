/**
 * What a program pays to register a resource: the SDK stores a stack on every promise it makes
 * (four per output property), read only when PULUMI_DEBUG_PROMISE_LEAKS is set; the classes turn
 * stack capture off while the SDK registers them (resourceClass.ts quietStacks). Counted here, not
 * timed: the stack frames V8 hands to Error.prepareStackTrace while resources are constructed.
 * What a program loads with the built package: test/engine/builtPackage.test.ts.
 */
import * as pulumi from "@pulumi/pulumi";
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
