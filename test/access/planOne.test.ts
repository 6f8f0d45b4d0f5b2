/**
 * The planner for one grant (access/plan.ts `planOne`), as the per-person resources use it, on
 * plain values: the window on the service's day, what to write, what expiry removes, and what
 * anti-lockout guards.
 */
import { describe, expect, it } from "vitest";
import type { Grant, Scope } from "../../contract/grants";
import { planOne, type LiveGrant } from "../../provider/access/plan";

const ORG: Scope = { kind: "organization", id: 102 };
const DB: Scope = { kind: "database", id: 2001 };
const grant = (scope: Scope, permissions?: string[], expiresOn?: string): Grant => ({
  scope,
  subject: { userId: 1003 },
  ...(permissions ? { permissions } : {}),
  ...(expiresOn ? { window: { expiresOn } } : {}),
});
const held = (scope: Scope, permissions: string[], status?: LiveGrant["status"]): LiveGrant => ({
  scope,
  subject: { userId: 1003 },
  permissions,
  ...(status ? { status } : {}),
});

describe("planOne", () => {
  it("writes what is absent or different, and nothing when what is held is what is declared", () => {
    expect(planOne(grant(DB, ["DB_UPLOAD"]), undefined, { scope: DB })).toEqual({
      standing: "active",
      write: true,
      remove: false,
      losing: false,
    });
    expect(planOne(grant(DB, ["DB_UPLOAD"]), held(DB, ["DB_UPLOAD"]), { scope: DB }).write).toBe(false);
    expect(planOne(grant(DB, ["DB_UPLOAD", "DB_DELETE"]), held(DB, ["DB_UPLOAD"]), { scope: DB }).write).toBe(true);
    // Permissions left out are not managed: a member is no change.
    expect(planOne(grant(ORG), held(ORG, ["ORG_ADMIN"], "active"), { scope: ORG }).write).toBe(false);
  });

  it("stands in its window on the day: soon within soonDays, expired from the end date on (removed only when held)", () => {
    const ends = grant(DB, ["DB_UPLOAD"], "2026-12-01");
    expect(planOne(ends, held(DB, ["DB_UPLOAD"]), { scope: DB, day: "2026-11-01", soonDays: 14 }).standing).toBe("active");
    expect(planOne(ends, held(DB, ["DB_UPLOAD"]), { scope: DB, day: "2026-11-30", soonDays: 14 }).standing).toBe("soon");
    expect(planOne(ends, held(DB, ["DB_UPLOAD"]), { scope: DB, day: "2026-12-01", soonDays: 14 })).toMatchObject({
      standing: "expired",
      write: false,
      remove: true,
    });
    expect(planOne(ends, undefined, { scope: DB, day: "2026-12-01" })).toMatchObject({ standing: "expired", write: false, remove: false });
    // No day asked (no date): every grant is current.
    expect(planOne(ends, undefined, { scope: DB }).standing).toBe("active");
  });

  it("losing: a change taking the administering permission, or an expiry taking DB_ADMIN or an active membership", () => {
    expect(planOne(grant(DB, ["DB_UPLOAD"]), held(DB, ["DB_ADMIN"]), { scope: DB }).losing).toBe(true);
    expect(planOne(grant(DB, ["DB_ADMIN", "DB_UPLOAD"]), held(DB, ["DB_ADMIN"]), { scope: DB }).losing).toBe(false);
    const past = { day: "2026-12-01" };
    expect(planOne(grant(DB, ["DB_UPLOAD"], "2026-12-01"), held(DB, ["DB_UPLOAD"]), { scope: DB, ...past }).losing).toBe(false);
    expect(planOne(grant(DB, ["DB_ADMIN"], "2026-12-01"), held(DB, ["DB_ADMIN"]), { scope: DB, ...past }).losing).toBe(true);
    expect(planOne(grant(ORG, undefined, "2026-12-01"), held(ORG, [], "active"), { scope: ORG, ...past }).losing).toBe(true);
    expect(planOne(grant(ORG, undefined, "2026-12-01"), held(ORG, [], "invited"), { scope: ORG, ...past }).losing).toBe(false);
  });
});
