/**
 * Messages held until their resource's URN is known (provider/resources/support/heldMessages.ts,
 * messages.ts `withResource`): what a refresh's first Read says in a plugin process reaches the
 * engine attached to the resource once the Diff after it names the URN; otherwise it is printed,
 * in order, never lost. Plain values: a Run with a sink that records what it is sent. Under the
 * real engine: test/engine/whoChanged.test.ts and the custodian-sync destroy of
 * test/engine/examples.test.ts.
 */
import { describe, expect, it, vi } from "vitest";
import { HeldMessages } from "../../provider/resources/support/heldMessages";
import { say, withResource } from "../../provider/resources/support/messages";
import { Run, type MessageSink } from "../../provider/resources/support/run";

const URN = "urn:pulumi:dev::p::pulumi-nodejs:dynamic/reviewadmin:OrgMember::alan";

/** A run whose sink records each message with its URN ("-": none, which the engine sink prints). */
function recordingRun() {
  const sent: string[] = [];
  const sink: MessageSink = {
    send: async (level, message, urn) => void sent.push(`${urn ?? "-"} ${level} ${message}`),
  };
  return { run: new Run({ messages: sink }), sent };
}

describe("withResource holds what an operation without its URN says", () => {
  it("a read that found the resource: held past its result, then sent attached, first, by the next operation that knows the URN", async () => {
    const { run, sent } = recordingRun();
    const read = await withResource(run, { urn: undefined, key: "OrgMember 102/alan", named: (r: { id?: string }) => !!r.id }, async () => {
      say.warn("changed outside this program");
      say.info("and one more line");
      return { id: "102/alan" };
    });
    expect(read).toEqual({ id: "102/alan" });
    expect(sent).toEqual([]);
    // Another resource's operation sends only its own.
    await withResource(run, { urn: "urn:other", key: "OrgMember 102/grace" }, async () => say.info("grace"));
    expect(sent).toEqual(["urn:other info grace"]);
    await withResource(run, { urn: URN, key: "OrgMember 102/alan" }, async () => say.info("the diff's own line"));
    expect(sent.slice(1)).toEqual([
      `${URN} warning changed outside this program`,
      `${URN} info and one more line`,
      `${URN} info the diff's own line`,
    ]);
    // Taken once: a later operation sends only its own.
    await withResource(run, { urn: URN, key: "OrgMember 102/alan" }, async () => say.info("later"));
    expect(sent.at(-1)).toBe(`${URN} info later`);
    expect(sent).toHaveLength(5);
  });

  it("a read that found nothing (no request follows) or failed: printed, in order, before the result", async () => {
    const { run, sent } = recordingRun();
    const named = (r: { id?: string }) => !!r.id;
    await withResource(run, { urn: undefined, key: "OrgMember 102/alan", named }, async () => {
      say.warn("removed outside this program");
      return {};
    });
    expect(sent).toEqual(["- warning removed outside this program"]);
    await expect(
      withResource(run, { urn: undefined, key: "OrgMember 102/ada", named }, async () => {
        say.info("reading");
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(sent).toEqual(["- warning removed outside this program", "- info reading"]);
    // Nothing is left held for either.
    expect(run.held.take("OrgMember 102/alan")).toEqual([]);
    expect(run.held.take("OrgMember 102/ada")).toEqual([]);
  });

  it("without `named` (no later request can name the URN), nothing is held: sent as said, unattached", async () => {
    const { run, sent } = recordingRun();
    await withResource(run, { urn: undefined, key: "OrgMember 102/alan" }, async () => say.warn("now"));
    expect(sent).toEqual(["- warning now"]);
  });
});

describe("HeldMessages", () => {
  it("keeps each resource's messages in order until taken, and a second hold adds after the first", () => {
    const held = new HeldMessages<string>();
    const expired: string[][] = [];
    held.hold("a", ["1", "2"], (late) => expired.push(late));
    held.hold("b", ["x"], (late) => expired.push(late));
    held.hold("a", ["3"], (late) => expired.push(late));
    expect(held.take("a")).toEqual(["1", "2", "3"]);
    expect(held.take("a")).toEqual([]);
    expect(held.take("b")).toEqual(["x"]);
    expect(expired).toEqual([]);
  });

  it("gives them to `expire`, in order, when nothing takes them within the wait; a taken resource never expires", () => {
    vi.useFakeTimers();
    try {
      const held = new HeldMessages<string>(3_000);
      const expired: string[][] = [];
      held.hold("a", ["1", "2"], (late) => expired.push(late));
      held.hold("b", ["x"], (late) => expired.push(late));
      expect(held.take("b")).toEqual(["x"]);
      vi.advanceTimersByTime(2_999);
      expect(expired).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(expired).toEqual([["1", "2"]]);
      expect(held.take("a")).toEqual([]);
      vi.advanceTimersByTime(10_000);
      expect(expired).toEqual([["1", "2"]]);
    } finally {
      vi.useRealTimers();
    }
  });
});
