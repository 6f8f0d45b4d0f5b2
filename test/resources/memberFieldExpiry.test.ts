/**
 * A member-field resource on the per-person engine (support/personGrant.ts, a `field` kind): its
 * end date empties the field and the member stays. Through the real plugin against the emulator:
 * a member holding an empty field is still there on refresh; a create past the end date still
 * needs the member, writes nothing and records the end; a field given back by hand is emptied
 * again by the next up; an emptied field still empty keeps its `expiredOn`; a member gone is gone.
 */
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import { useResourceWorld } from "../support/providerWorld";
import { SCENARIO, step } from "../support/scenario";

const ORG = SEEDED.org;
const U = SEEDED.users;
const { world, store, record, res } = useResourceWorld("OrgMemberPermissions");
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const permsOf = (userId: number) => [...store().members.get(ORG, userId).permissions].sort();

describe("OrgMemberPermissions: expiry empties the field, the member stays", () => {
  it("keeps a member with an empty field; a create past the end writes nothing; up empties a field given back", SCENARIO, async () => {
    const yesterday = day(store().clock.now() - 86_400_000);
    const alan = { organizationId: ORG, userId: U.member, permissions: ["AI_ADMIN"], expiresOn: yesterday };

    await step("a member holding no permissions is still there on refresh", async () => {
      const empty = { organizationId: ORG, userId: U.member, permissions: [] };
      await world().run(async (run) => {
        const d = await res(run, "empty");
        expect((await d.up(empty)).outs).toMatchObject({ userId: U.member, permissions: [] });
        const s = await d.refresh();
        expect(s?.outputs).toMatchObject({ userId: U.member, permissions: [] });
        expect(s?.outputs.expiredOn).toBeUndefined();
        await d.destroy();
      });
    });

    await step("a create past the end date needs the member, writes nothing and records the end", async () => {
      store().members.update(ORG, U.member, { permissions: ["LEGAL_HOLD_ADMIN"] });
      const sent = record();
      await world().run(async (run) => {
        const r = await (await res(run, "alan")).up(alan);
        expect(r.outs).toMatchObject({ userId: U.member, permissions: ["LEGAL_HOLD_ADMIN"], expiredOn: yesterday });
        await expect((await res(run, "outsider")).up({ ...alan, userId: U.unaffiliated })).rejects.toThrow(
          /is not a member of organization/,
        );
      });
      expect(sent.writes()).toEqual([]);
    });

    await step("refresh finds the field held, and the next up empties it with one write", async () => {
      await world().run(async (run) => {
        const s = await (await res(run, "alan")).refresh();
        expect(s?.outputs.permissions).toEqual(["LEGAL_HOLD_ADMIN"]);
        expect(s?.outputs.expiredOn).toBeUndefined();
      });
      const sent = record();
      const r = await world().run(async (run) => (await res(run, "alan")).up(alan));
      expect(sent.writes()).toEqual(["PatchOrganizationUser 200"]);
      expect(r.outs).toMatchObject({ permissions: [], expiredOn: yesterday });
      expect(permsOf(U.member)).toEqual([]);
    });

    await step("refresh of the emptied field keeps expiredOn; a member removed behind its back drops it", async () => {
      await world().run(async (run) => {
        const s = await (await res(run, "alan")).refresh();
        expect(s?.outputs).toMatchObject({ permissions: [], expiredOn: yesterday });
      });
      store().members.remove(ORG, U.member);
      await world().run(async (run) => expect(await (await res(run, "alan")).refresh()).toBeUndefined());
    });
  });
});
