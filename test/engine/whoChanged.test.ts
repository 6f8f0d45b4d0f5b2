/**
 * Who changed a drifted resource, under the real engine (issue 27): `pulumi refresh` after a change
 * made in the web app warns the acting user and the time, read from the activity log after the
 * resource's appliedAt, which the engine hands back on refresh and the refresh keeps.
 */
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import * as reviewadmin from "../../provider";
import { control } from "../support/emulatorHttp";
import { useProgramWorld } from "../support/programWorld";

const ORG = SEEDED.org;
const U = SEEDED.users;
const world = useProgramWorld("who-changed");

describe("pulumi refresh names who changed a member", () => {
  it("a permission changed in the web app: the refresh warns who and when; appliedAt stays", async () => {
    const s = world.freshStack();
    const program = () => {
      new reviewadmin.OrgMember("alan", { organizationId: ORG, email: "alan@northwind.example", permissions: ["AI_ADMIN"] });
    };
    await s.up(program);
    const applied = s.find("alan")!.outputs.appliedAt as string;
    expect(Date.parse(applied)).toBeGreaterThan(0);

    // Grace, in the web app, a moment later: the refresh names her as the review packet does.
    world.emu.store.clock.advance(2_000);
    const changed = await control(world.emu.url, "PATCH", `/organizations/${ORG}/members/${U.member}`, {
      permissions: [],
      actingUserId: U.parentAdminUser,
    });
    expect(changed.status).toBe(200);
    const at = new Date(world.emu.store.clock.now()).toISOString().slice(0, 16);

    const refresh = await s.refresh();
    const warned = refresh.logs.filter((l) => l.line.includes("changed outside this program"));
    expect(warned).toHaveLength(1);
    expect(warned[0]!.line).toMatch(
      new RegExp(
        `refreshing OrgMember alan@northwind\\.example in organization 102: changed outside this program: changed at ${at}\\S* by Grace Hopper <grace@northwind\\.example> \\(user ${U.parentAdminUser}\\) \\(USER_UPDATED\\)`,
      ),
    );
    // Attached to the member, though its Read is the plugin process's first request: held until
    // the Diff the engine runs next names the URN (provider/resources/support/heldMessages.ts).
    expect(warned[0]!.urn).toBe(s.find("alan")!.urn);
    expect(warned[0]!.stream).toBe("stderr");
    expect(s.find("alan")!.outputs.appliedAt).toBe(applied);
    expect(world.emu.traffic.log.list("GetOrganizationEvents")).toHaveLength(1);
  });
});
