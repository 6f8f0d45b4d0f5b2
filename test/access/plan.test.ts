/**
 * The grant model (contract/grants.ts) and the one planner of access (provider/access/plan.ts) on
 * plain values: the window, adds, changes and removals, protection and handover, expiry in either
 * mode, and the one anti-lockout rule for organizations and databases.
 */
import { describe, expect, it } from "vitest";
import type { ReviewAdminClient } from "../../provider/client";
import { hasPassed } from "../../provider/access/clock";
import { claimKeysOf, isPrivileged, standingOn, wallCovers, type Grant, type Scope } from "../../contract/grants";
import {
  differs,
  lastAdminsNote,
  lockoutCause,
  lockoutEach,
  lockoutRefusal,
  losesGuarded,
  planGrants,
  type LiveGrant,
  type PlanSettings,
} from "../../provider/access/plan";

const ORG: Scope = { kind: "organization", id: 102 };
const DB: Scope = { kind: "database", id: 2001 };

const person = (email: string, more: Partial<Grant> = {}): Grant => ({ scope: ORG, subject: { email }, ...more });
const member = (email: string, userId: number, permissions: string[], more: Partial<LiveGrant> = {}): LiveGrant => ({
  scope: ORG,
  subject: { email, userId },
  permissions,
  status: "active",
  ...more,
});
const dbUser = (userId: number, permissions: string[]): LiveGrant => ({ scope: DB, subject: { userId }, permissions });
const settings = (more: Partial<PlanSettings> = {}): PlanSettings => ({ scope: ORG, mode: "authoritative", ...more });

describe("the grant model", () => {
  it("a grant stands on a day by its window: ends at the start of expiresOn, starts on startsOn, soon within N days", () => {
    expect(standingOn({ expiresOn: "2026-12-01" }, "2026-11-30", 1)).toBe("soon");
    expect(standingOn({ expiresOn: "2026-12-01" }, "2026-12-01", 14)).toBe("expired");
    expect(standingOn({ expiresOn: "2026-12-31" }, "2026-12-01", 14)).toBe("active");
    expect(standingOn({ startsOn: "2026-12-02" }, "2026-12-01", 14)).toBe("notYet");
    expect(standingOn(undefined, "2026-12-01", 14)).toBe("active");
  });

  it("claim keys name a membership by email and user id, a database grant by user id", () => {
    expect(claimKeysOf(person("Ada@X.example", { subject: { email: "Ada@X.example", userId: 1001 } }))).toEqual([
      "member:102:email:ada@x.example",
      "member:102:user:1001",
    ]);
    expect(claimKeysOf(dbUser(1003, []))).toEqual(["grant:2001:1003"]);
  });

  it("privileged: every organization permission, DB_ADMIN on a database; a wall covers an email or its domain", () => {
    expect(isPrivileged("organization", "AI_ADMIN")).toBe(true);
    expect(isPrivileged("database", "DB_ADMIN")).toBe(true);
    expect(isPrivileged("database", "DB_UPLOAD")).toBe(false);
    expect(wallCovers("*@contoso.example", "Ken@Contoso.example")).toBe(true);
    expect(wallCovers("ken@contoso.example", "kenneth@contoso.example")).toBe(false);
  });
});

describe("planGrants", () => {
  it("adds the absent, changes what differs in what is managed, and leaves the rest", () => {
    const desired = {
      "new@x": person("new@x", { permissions: ["AI_ADMIN"] }),
      "same@x": person("same@x", { permissions: ["AI_ADMIN"] }),
      "more@x": person("more@x", { permissions: ["AI_ADMIN", "LEGAL_HOLD_ADMIN"] }),
      "unmanaged@x": person("unmanaged@x"),
    };
    const live = {
      "same@x": member("same@x", 1, ["AI_ADMIN"]),
      "more@x": member("more@x", 2, ["AI_ADMIN"]),
      "unmanaged@x": member("unmanaged@x", 3, ["ORG_ADMIN"]),
    };
    const plan = planGrants(desired, live, settings({ mode: "additive" }));
    expect([plan.add, plan.change, plan.remove]).toEqual([["new@x"], ["more@x"], []]);
  });

  it("differs: identifiers only once a member, and an expired invitation is re-sent", () => {
    const ids = [{ abbreviation: "AL", label: "Alan" }];
    expect(differs(person("a@x", { identifiers: ids }), member("a@x", 1, [], { status: "invited", identifiers: [] }))).toBe(false);
    expect(differs(person("a@x", { identifiers: ids }), member("a@x", 1, [], { identifiers: [] }))).toBe(true);
    expect(differs(person("a@x"), member("a@x", 1, [], { status: "expired" }))).toBe(true);
    expect(differs(person("a@x", { permissions: ["B", "A"] }), member("a@x", 1, ["A", "B"]))).toBe(false);
  });

  it("differs compares sets and identifiers by content, in the same order or not", () => {
    const ab = [
      { abbreviation: "A", label: "Ada" },
      { abbreviation: "B", label: "Bea" },
    ];
    const same = (want: Partial<Grant>, have: Partial<LiveGrant>) => !differs(person("a@x", want), member("a@x", 1, [], have));
    expect(same({ permissions: ["A", "B"] }, { permissions: ["A", "B"] })).toBe(true);
    expect(same({ permissions: ["A", "A", "B"] }, { permissions: ["B", "A"] })).toBe(true);
    expect(same({ permissions: ["A", "B"] }, { permissions: ["A", "C"] })).toBe(false);
    expect(same({ permissions: ["A"] }, { permissions: ["A", "B"] })).toBe(false);
    expect(same({ identifiers: ab }, { identifiers: ab.map((i) => ({ ...i })) })).toBe(true);
    expect(same({ identifiers: ab }, { identifiers: [...ab].reverse() })).toBe(true);
    expect(same({ identifiers: ab }, { identifiers: [ab[0]!, { abbreviation: "B", label: "Bee" }] })).toBe(false);
    expect(same({ identifiers: ab }, { identifiers: [ab[0]!, { abbreviation: "C", label: "Bea" }] })).toBe(false);
  });

  it("authoritative removes the undeclared, except the protected and what another resource of the run declares", () => {
    const live = { "a@x": member("a@x", 1, []), "p@x": member("p@x", 2, []), "h@x": member("h@x", 3, []) };
    const plan = planGrants({}, live, {
      ...settings(),
      protectedKeys: ["p@x"],
      declaredElsewhere: (keys) => (keys.includes("member:102:user:3") ? 'OrgMember "h"' : undefined),
    });
    expect(plan.remove).toEqual(["a@x"]);
    expect(plan.handedOver).toEqual([["h@x", 'OrgMember "h"']]);
    expect(planGrants({}, live, settings({ mode: "additive" })).remove).toEqual([]);
  });

  it("a grant past its end is removed even in additive mode; one not started yet counts as not declared", () => {
    const desired = {
      "old@x": person("old@x", { window: { expiresOn: "2026-12-01" } }),
      "soon@x": person("soon@x", { window: { expiresOn: "2026-12-05" } }),
      "later@x": person("later@x", { window: { startsOn: "2027-01-01" } }),
    };
    const live = { "old@x": member("old@x", 1, []), "later@x": member("later@x", 2, []) };
    const additive = planGrants(desired, live, settings({ mode: "additive", day: "2026-12-01", soonDays: 14 }));
    expect(additive).toMatchObject({
      expired: { "old@x": "2026-12-01" },
      soon: { "soon@x": "2026-12-05" },
      ends: { "old@x": "2026-12-01", "soon@x": "2026-12-05" },
      add: ["soon@x"],
      remove: ["old@x"],
    });
    expect(Object.keys(additive.current)).toEqual(["soon@x"]);
    expect(planGrants(desired, live, settings({ day: "2026-12-01" })).remove).toEqual(["old@x", "later@x"]);
    // Without a day (no grant has a date, or none was asked) every grant is current.
    expect(planGrants(desired, live, settings({ mode: "additive" })).remove).toEqual([]);
  });

  it("losing: an active member removed or an admin permission taken; an invitation removed loses nothing", () => {
    const live = {
      "admin@x": member("admin@x", 1, ["ORG_ADMIN"]),
      "plain@x": member("plain@x", 2, []),
      "inv@x": member("inv@x", 0, ["ORG_ADMIN"], { status: "invited", subject: { email: "inv@x", userId: null } }),
      "kept@x": member("kept@x", 3, ["ORG_ADMIN"]),
    };
    const desired = { "admin@x": person("admin@x", { permissions: ["AI_ADMIN"] }), "kept@x": person("kept@x") };
    expect(planGrants(desired, live, settings()).losing).toEqual(["plain@x", "admin@x"]);
    // At a database only DB_ADMIN is guarded.
    expect(losesGuarded(DB, dbUser(1, ["DB_UPLOAD"]), undefined)).toBe(false);
    expect(losesGuarded(DB, dbUser(1, ["DB_ADMIN"]), undefined)).toBe(true);
    expect(losesGuarded(DB, dbUser(1, ["DB_ADMIN"]), { scope: DB, subject: { userId: 1 }, permissions: ["DB_UPLOAD"] })).toBe(true);
  });
});

describe("anti-lockout: one rule for organizations and databases", () => {
  const admins = [member("ada@x", 1001, ["ORG_ADMIN"]), member("alan@x", 1002, ["ORG_ADMIN"]), member("ken@x", 1003, [])];

  it("refuses taking the last org admin, naming them, in one wording", () => {
    expect(lockoutRefusal(ORG, admins, [admins[1]!], undefined, "x")).toBeUndefined();
    expect(lockoutRefusal(ORG, admins, [admins[0]!, admins[1]!], undefined, "updating X")).toBe(
      "updating X: refused: ada@x (user 1001), alan@x (user 1002) are the last org admins of organization 102; removing them would leave it with no org admin. Keep one, or set allowAdminRemoval: true to do it anyway.",
    );
  });

  it("refuses taking it from the key's own user", () => {
    expect(lockoutRefusal(ORG, admins, [admins[0]!], { userId: 1001 }, "deleting X")).toBe(
      "deleting X: refused: it would take ORG_ADMIN from ada@x (user 1001), the user of the API key in use, locking this program out of organization 102. Set allowAdminRemoval: true to do it anyway.",
    );
  });

  it("keeps the last DB_ADMIN of a database no one else administers: orgAdminAccess off, no org admin left, or not known", () => {
    const users = [dbUser(1004, ["DB_ADMIN"]), dbUser(1005, ["DB_UPLOAD"])];
    expect(lockoutCause(DB, users, [users[0]!], undefined)).toEqual({ kind: "lastAdmins", lost: [users[0]] });
    expect(lockoutRefusal(DB, users, [users[0]!], undefined, "updating DatabaseUsers of database 2001")).toBe(
      "updating DatabaseUsers of database 2001: refused: user 1004 is the last DB_ADMIN of database 2001; removing them would leave it with no DB_ADMIN. Keep one, or set allowAdminRemoval: true to do it anyway.",
    );
    const off = { organizationId: 102, orgAdminAccess: false, orgAdmins: 2 };
    expect(lockoutRefusal(DB, users, [users[0]!], undefined, "x", off)).toBe(
      "x: refused: user 1004 is the last DB_ADMIN of database 2001, which keeps orgAdminAccess off (no org admin administers it); removing them would leave it with no DB_ADMIN. Keep one, or set allowAdminRemoval: true to do it anyway.",
    );
    const noOrgAdmin = { organizationId: 102, orgAdminAccess: true, orgAdmins: 0 };
    expect(lockoutRefusal(DB, users, [users[0]!], undefined, "x", noOrgAdmin)).toBe(
      "x: refused: user 1004 is the last DB_ADMIN of database 2001, and organization 102 has no org admin to administer it; removing them would leave it with no DB_ADMIN. Keep one, or set allowAdminRemoval: true to do it anyway.",
    );
    expect(lastAdminsNote(DB, users, [users[0]!], off, "x")).toBeUndefined();
    // With another DB_ADMIN left, only the key's own user is kept.
    const two = [...users, dbUser(1006, ["DB_ADMIN"])];
    expect(lockoutCause(DB, two, [two[0]!], undefined)).toBeUndefined();
    expect(lastAdminsNote(DB, two, [two[0]!], { organizationId: 102, orgAdminAccess: true, orgAdmins: 1 }, "x")).toBeUndefined();
    expect(lockoutRefusal(DB, two, [two[0]!], { userId: 1004, email: "barbara@x" }, "deleting Y")).toBe(
      "deleting Y: refused: it would take DB_ADMIN from barbara@x (user 1004), the user of the API key in use, locking this program out of database 2001. Set allowAdminRemoval: true to do it anyway.",
    );
  });

  it("lets a database's last DB_ADMIN go when its organization's org admins administer it, and says so", () => {
    const users = [dbUser(1004, ["DB_ADMIN"]), dbUser(1005, ["DB_UPLOAD"])];
    const backstop = { organizationId: 102, orgAdminAccess: true, orgAdmins: 2 };
    expect(lockoutCause(DB, users, [users[0]!], undefined, backstop)).toBeUndefined();
    expect(lockoutRefusal(DB, users, [users[0]!], undefined, "updating DatabaseUsers of database 2001", backstop)).toBeUndefined();
    expect(lastAdminsNote(DB, users, [users[0]!], backstop, "updating DatabaseUsers of database 2001")).toBe(
      "updating DatabaseUsers of database 2001: user 1004 loses DB_ADMIN of database 2001, its last DB_ADMIN; organization 102's 2 org admins still administer it (orgAdminAccess is on)",
    );
    // The key's own DB_ADMIN stays whatever the backstop, and an organization's last org admin has none.
    expect(lockoutCause(DB, users, [users[0]!], { userId: 1004 }, backstop)?.kind).toBe("own");
    const admins = [member("ada@x", 1001, ["ORG_ADMIN"])];
    expect(lockoutCause(ORG, admins, [admins[0]!], undefined, backstop)?.kind).toBe("lastAdmins");
    // One after another (a wall's breaches): with the backstop, the last one may go too.
    expect(lockoutEach(DB, [...users, dbUser(1006, ["DB_ADMIN"])], [users[0]!, dbUser(1006, ["DB_ADMIN"])], undefined, backstop)).toEqual([
      undefined,
      undefined,
    ]);
  });

  it("judges nothing when nobody loses anything guarded; invitations are not admins", () => {
    expect(lockoutCause(ORG, admins, [], { userId: 1001 })).toBeUndefined();
    const invitedOnly = [member("inv@x", 0, ["ORG_ADMIN"], { status: "invited" }), member("ada@x", 1001, ["ORG_ADMIN"])];
    expect(lockoutCause(ORG, invitedOnly, [invitedOnly[1]!], undefined)?.kind).toBe("lastAdmins");
  });

  it("removals taken one after another (an ethical wall's breaches): each judged with those before it done", () => {
    const users = [dbUser(1004, ["DB_ADMIN"]), dbUser(1005, ["DB_ADMIN"]), dbUser(1006, ["DB_UPLOAD"]), dbUser(1001, ["DB_ADMIN"])];
    // 1004 may go (1005 and 1001 remain); the key's own user (1001) stays; 1005 is then the last.
    const causes = lockoutEach(DB, users, [users[0]!, users[3]!, users[1]!, users[2]!], { userId: 1001 });
    expect(causes.map((c) => c?.kind)).toEqual([undefined, "own", undefined, undefined]);
    const alone = lockoutEach(DB, users.slice(0, 3), [users[0]!, users[1]!], undefined);
    expect(alone.map((c) => c?.kind)).toEqual([undefined, "lastAdmins"]);
  });
});

describe("the service clock", () => {
  /** A client whose service clock reads `service` once asked (GetCurrentUser answers with a Date header). */
  const clientAt = (service: number | undefined, machineKnows: boolean) => {
    let asked = 0;
    let known = machineKnows ? service : undefined;
    const client = {
      serviceNow: () => known,
      call: async () => {
        asked += 1;
        known = service;
        return { id: 1001 };
      },
    } as unknown as ReviewAdminClient;
    return { client, asked: () => asked };
  };
  const now = Date.now();

  it("an invitation's expiration has passed only when this machine's clock and the service's both say so", async () => {
    const behind = clientAt(now - 3_600_000, false); // the service is an hour behind this machine
    expect(await hasPassed(behind.client, now - 60_000)).toBe(false);
    expect(behind.asked()).toBe(1);
    const both = clientAt(now + 1_000, false);
    expect(await hasPassed(both.client, now - 60_000)).toBe(true);
  });

  it("asks the service nothing while nothing looks past, and at most once a run", async () => {
    const c = clientAt(now, false);
    expect(await hasPassed(c.client, now + 86_400_000)).toBe(false);
    expect(c.asked()).toBe(0);
    const ahead = clientAt(now + 7_200_000, true); // already known in this run: the service is ahead
    expect(await hasPassed(ahead.client, now + 3_600_000)).toBe(true);
    expect(ahead.asked()).toBe(0);
  });
});
