/** The harness deletes as the engine does: dependents first, everything ready in parallel. */
import { describe, expect, it } from "vitest";
import { deleteInParallel, type StateEntry } from "../../harness/program/state";

/** Resolves once every promise chain already started has run: deleteInParallel waits on nothing else. */
const settled = () => new Promise<void>((r) => setImmediate(r));

const entry = (name: string, deps: string[] = [], parent?: string): StateEntry => ({
  urn: name,
  type: "t",
  name,
  id: name,
  inputs: {},
  outputs: {},
  dependencies: deps,
  parent,
  protect: false,
  retainOnDelete: false,
  secretKeys: [],
});

describe("deleteInParallel", () => {
  it("starts every resource whose dependents are gone at once, and a resource only after its dependents", async () => {
    const events: string[] = [];
    const release = new Map<string, () => void>();
    const run = deleteInParallel([entry("db"), entry("grant", ["db"]), entry("child", [], "db"), entry("other")], (s) => {
      events.push(`start ${s.name}`);
      return new Promise<void>((r) => release.set(s.name, () => (events.push(`end ${s.name}`), r())));
    });
    await settled();
    expect(events.sort()).toEqual(["start child", "start grant", "start other"]);
    release.get("grant")!();
    await settled();
    expect(events).not.toContain("start db"); // its child is still there
    release.get("child")!();
    await settled();
    expect(events).toContain("start db");
    release.get("other")!();
    release.get("db")!();
    await run;
  });

  it("starts nothing new after a failure, and throws it", async () => {
    const started: string[] = [];
    const err = await deleteInParallel([entry("a"), entry("b", ["a"])], async (s) => {
      started.push(s.name);
      if (s.name === "b") throw new Error("boom");
    }).catch((e: Error) => e.message);
    expect(err).toBe("boom");
    expect(started).toEqual(["b"]);
  });
});
