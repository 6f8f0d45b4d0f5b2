/**
 * The rules of expiring access in one module (provider/resources/support/expiry.ts; a map on a day is the planner's onDay, provider/access/plan.ts), on plain
 * values: what a calendar day is, that access ends at the START of the expiresOn day (UTC), what
 * counts as expiring soon, and the reviewadmin:expiringSoonDays setting.
 */
import { afterEach, describe, expect, it } from "vitest";
import { onDay } from "../../provider/access/plan";
import { isCalendarDay, standing } from "../../provider/resources/support/expiry";
import { Run } from "../../provider/resources/support/run";

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe("expiry rules", () => {
  it("a calendar day is a real YYYY-MM-DD date", () => {
    expect(["2026-12-31", "2028-02-29"].every(isCalendarDay)).toBe(true);
    expect(["2026-02-30", "2027-02-29", "31/12/2026", "2026-1-5", "2026-12-31T00:00:00Z", ""].some(isCalendarDay)).toBe(false);
  });

  it("access ends at the start of the expiresOn day; startsOn is the first day; soon is within N days", () => {
    const w = { startsOn: "2026-11-20", expiresOn: "2026-12-01" };
    expect(standing(w, "2026-11-19", 14)).toBe("notYet");
    expect(standing(w, "2026-11-20", 5)).toBe("active");
    expect(standing(w, "2026-11-26", 5)).toBe("soon");
    expect(standing(w, "2026-11-30", 5)).toBe("soon");
    expect(standing(w, "2026-12-01", 5)).toBe("expired");
    expect(standing({}, "2099-01-01", 5)).toBe("active");
  });

  it("a roster's map on a day: current entries, end dates, soon and expired apart", () => {
    const m = onDay(
      {
        a: { window: { expiresOn: "2026-12-01" } },
        b: {},
        c: { window: { expiresOn: "2026-11-01" } },
        d: { window: { startsOn: "2027-01-01" } },
      },
      "2026-11-25",
      14,
    );
    expect(Object.keys(m.current)).toEqual(["a", "b"]);
    expect(m).toMatchObject({ ends: { a: "2026-12-01", c: "2026-11-01" }, soon: { a: "2026-12-01" }, expired: { c: "2026-11-01" } });
  });

  it("N comes from the run's reviewadmin:expiringSoonDays, then REVIEWADMIN_EXPIRING_SOON_DAYS, default 14", () => {
    process.env.REVIEWADMIN_API_KEY = "K.ABCDEFGH.SECRET";
    process.env.REVIEWADMIN_BASE_URL = "http://127.0.0.1:1";
    expect(new Run().soonDays()).toBe(14);
    process.env.REVIEWADMIN_EXPIRING_SOON_DAYS = "30";
    expect(new Run().soonDays()).toBe(30);
    expect(new Run({ settings: { expiringSoonDays: 7 } }).soonDays()).toBe(7);
  });
});
