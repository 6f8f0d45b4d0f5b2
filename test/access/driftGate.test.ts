/**
 * The drift gate's rules (provider/access/gate.ts) on plain values: whom it
 * judges (additive rosters; not the accepted, not those declared elsewhere), what counts for each
 * setting, the record made at the first apply, and that it judges drift: someone recorded passes
 * while they hold no more than then. The engine-level behaviour (a preview failing once, an up
 * failing after the rest) is test/engine/driftGate.test.ts.
 */
import { describe, expect, it } from "vitest";
import { isPrivileged } from "../../contract/grants";
import { adoptionRecord, gateFindings, keptRecord, type GateSettings, type UnmanagedHolder } from "../../provider/access/gate";

const privileged = (p: string) => isPrivileged("database", p);
const holder = (id: number, permissions: string[], status?: string): UnmanagedHolder => ({
  who: `user ${id}`,
  key: String(id),
  keys: [`grant:2001:${id}`],
  permissions,
  ...(status ? { status } : {}),
});
const additive = (more: Partial<GateSettings> = {}): GateSettings => ({ mode: "additive", ...more });
const keysOf = (fs: { holder: UnmanagedHolder }[]) => fs.map((f) => f.holder.key);

describe("the drift gate", () => {
  const admin = holder(1004, ["DB_ADMIN"]);
  const uploader = holder(1005, ["DB_UPLOAD"]);

  it("by default stops on undeclared privileged access only; failOnAny on anyone; report and ignore as settings say", () => {
    expect(keysOf(gateFindings(additive(), [admin, uploader], privileged, undefined))).toEqual(["1004"]);
    expect(keysOf(gateFindings(additive({ onUnmanaged: "failOnAny" }), [admin, uploader], privileged, undefined))).toEqual([
      "1004",
      "1005",
    ]);
    expect(gateFindings(additive({ onUnmanaged: "ignore" }), [admin], privileged, undefined)).toEqual([]);
    // "report" finds the same people; the roster warns instead of failing (gateFails).
    expect(keysOf(gateFindings(additive({ onUnmanaged: "report" }), [admin], privileged, undefined))).toEqual(["1004"]);
  });

  it("passes the accepted (knownExceptions), those declared elsewhere in the program, and every authoritative roster", () => {
    expect(gateFindings(additive({ knownExceptions: [1004] }), [admin], privileged, undefined)).toEqual([]);
    expect(
      gateFindings(additive({ declaredElsewhere: { "grant:2001:1004": "DatabaseUserPermissions x" } }), [admin], privileged, undefined),
    ).toEqual([]);
    expect(gateFindings({ mode: "authoritative" }, [admin], privileged, undefined)).toEqual([]);
  });

  it("takes who else in the run declares a person from its caller, so it reads no registry of its own", () => {
    const claimedInRun = (keys: readonly string[]) => (keys.includes("grant:2001:1004") ? "DatabaseUserPermissions y" : undefined);
    expect(gateFindings(additive(), [admin], privileged, undefined, claimedInRun)).toEqual([]);
    expect(adoptionRecord(additive(), [admin], privileged, claimedInRun)).toEqual({});
    // Without it, only the roster's own declaredElsewhere counts: the same person is judged.
    expect(keysOf(gateFindings(additive(), [admin], privileged, undefined))).toEqual(["1004"]);
  });

  it("judges drift, not the world: who was found at the first apply passes while they hold no more than then", () => {
    const record = adoptionRecord(additive(), [admin, uploader], privileged);
    expect(record).toEqual({ "1004": ["DB_ADMIN"] });
    expect(gateFindings(additive(), [admin, uploader], privileged, record)).toEqual([]);
    // Someone new waits for a decision; so does someone recorded who gained more, with what they held then.
    const newcomer = holder(1009, ["DB_ADMIN"]);
    expect(keysOf(gateFindings(additive(), [admin, uploader, newcomer], privileged, record))).toEqual(["1009"]);
    const everyone = adoptionRecord(additive({ onUnmanaged: "failOnAny" }), [admin, uploader], privileged);
    expect(everyone).toEqual({ "1004": ["DB_ADMIN"], "1005": ["DB_UPLOAD"] });
    const gained = gateFindings(additive(), [holder(1005, ["DB_ADMIN", "DB_UPLOAD"])], privileged, everyone);
    expect(gained).toEqual([{ holder: expect.objectContaining({ key: "1005" }), held: ["DB_ADMIN"], heldThen: ["DB_UPLOAD"] }]);
    const lost = gateFindings(additive(), [holder(1004, ["DB_ADMIN", "DB_DELETE"])], privileged, record);
    expect(lost).toEqual([]); // DB_DELETE is not privileged: nothing more that counts
  });

  it("the record keeps only who is still there undeclared: leaving and coming back is new", () => {
    const record = { "1004": ["DB_ADMIN"], "1005": ["DB_UPLOAD"] };
    expect(keptRecord(record, [admin])).toEqual({ "1004": ["DB_ADMIN"] });
    expect(keptRecord(undefined, [admin])).toBeUndefined();
    expect(keysOf(gateFindings(additive(), [admin], privileged, keptRecord(record, [])))).toEqual(["1004"]);
  });
});
