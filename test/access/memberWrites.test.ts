/**
 * The organization gateway's member writes (provider/access/orgPeople.ts): finding a member by
 * user id or email, writing only the fields that differ (the loss of ORG_ADMIN through the guard),
 * and removing a person, against the emulator over HTTP.
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { findMember, removePerson, writeMember, type AdminLossGuard } from "../../provider/access/orgPeople";
import { ReviewAdminClient } from "../../provider/client";
import { adminLossGuard, LockoutRefusal } from "../../provider/resources/support/lockout";
import { useEmulator } from "../support/emulatorHttp";

const ORG = SEEDED.org;
const U = SEEDED.users;

describe("the organization gateway's member writes", () => {
  const emu = useEmulator();
  const clients: ReviewAdminClient[] = [];
  afterAll(() => Promise.all(clients.map((c) => c.close())));
  beforeEach(() => void emu.reset());
  /** A fresh client (a run of its own: its own cached lists). */
  const client = () => {
    const c = new ReviewAdminClient({ baseUrl: emu.url, apiKey: emu.keys.orgAdmin!, requestsPerSecond: 1000, retryBaseMs: 1 });
    clients.push(c);
    return c;
  };
  /** The requests sent from now on, as "Operation status". */
  const record = () => {
    const from = emu.traffic.log.list().length;
    return () =>
      emu.traffic.log
        .list()
        .slice(from)
        .map((e) => `${e.operation} ${e.status}`);
  };
  /** A guard that records whom it was asked to guard and lets the write through. */
  const spyGuard = () => {
    const guarded: number[] = [];
    const guard: AdminLossGuard = (userId, write) => {
      guarded.push(userId);
      return write();
    };
    return { guard, guarded };
  };

  it("finds a member by user id, by email whatever its case, by email when the id is not a member's; nobody else", async () => {
    const c = client();
    expect((await findMember(c, ORG, { userId: U.member }))?.email).toBe("alan@northwind.example");
    expect((await findMember(c, ORG, { email: "Alan@Northwind.Example" }))?.id).toBe(U.member);
    expect((await findMember(c, ORG, { userId: U.unaffiliated, email: "alan@northwind.example" }))?.id).toBe(U.member);
    expect(await findMember(c, ORG, { userId: U.unaffiliated })).toBeUndefined();
    expect(await findMember(c, ORG, { email: "nobody@northwind.example" })).toBeUndefined();
  });

  it("writes what differs in one request, nothing when all agree, and guards only a write that takes ORG_ADMIN", async () => {
    const c = client();
    const alan = (await findMember(c, ORG, { userId: U.member }))!;
    const { guard, guarded } = spyGuard();
    let sent = record();
    const ids = [{ abbreviation: "AT", label: "Alan Turing" }];
    const written = await writeMember(c, ORG, alan, { permissions: ["AI_ADMIN"], identifiers: ids }, guard);
    expect(sent()).toEqual(["PatchOrganizationUser 200"]);
    expect(written.permissions).toEqual(["AI_ADMIN"]);
    expect(emu.store.members.get(ORG, U.member).userIdentifiers).toEqual(ids);

    sent = record();
    expect(
      await writeMember(c, ORG, written, { permissions: ["AI_ADMIN"], identifiers: [{ label: "Alan Turing", abbreviation: "AT" }] }, guard),
    ).toBe(written);
    expect(await writeMember(c, ORG, written, {}, guard)).toBe(written);
    expect(sent()).toEqual([]);
    expect(guarded).toEqual([]);

    const ada = (await findMember(c, ORG, { userId: U.orgAdmin }))!;
    sent = record();
    await writeMember(c, ORG, ada, { permissions: ["ORG_ADMIN", "AI_ADMIN"] }, guard);
    expect(guarded).toEqual([]); // adding keeps ORG_ADMIN
    await writeMember(c, ORG, (await findMember(c, ORG, { userId: U.orgAdmin }))!, { permissions: ["AI_ADMIN"] }, guard);
    expect(guarded).toEqual([U.orgAdmin]);
    expect(sent()).toEqual(["PatchOrganizationUser 200", "PatchOrganizationUser 200"]);
  });

  it("sends nothing when the guard refuses the loss of ORG_ADMIN", async () => {
    const c = client();
    const ada = (await findMember(c, ORG, { userId: U.orgAdmin }))!;
    const sent = record();
    const guard = adminLossGuard(c, { kind: "organization", id: ORG }, "updating Ada", false);
    await expect(writeMember(c, ORG, ada, { permissions: ["AI_ADMIN"] }, guard)).rejects.toThrow(LockoutRefusal);
    expect(sent().filter((r) => r.startsWith("PatchOrganizationUser"))).toEqual([]);
    expect(emu.store.members.get(ORG, U.orgAdmin).permissions).toEqual(["ORG_ADMIN"]);
  });

  it("removes a member through the guard, withdraws an invitation without it, and does nothing for nobody", async () => {
    const c = client();
    const { guard, guarded } = spyGuard();
    const sent = record();
    await removePerson(c, ORG, { email: "alan@northwind.example", userId: U.member }, guard);
    await removePerson(c, ORG, { email: SEEDED.invitations.pending }, guard);
    await removePerson(c, ORG, { email: "nobody@northwind.example" }, guard);
    expect(guarded).toEqual([U.member]);
    expect(sent()).toEqual([
      "GetOrganizationUsers 200",
      "DeleteOrganizationUser 204",
      "GetOrganizationInvitations 200",
      "DeleteOrganizationInvitation 204",
    ]);
    expect(emu.store.members.find(ORG, U.member)).toBeUndefined();
    expect(emu.store.invitations.of(ORG).map((i) => i.email)).not.toContain(SEEDED.invitations.pending);
  });
});
