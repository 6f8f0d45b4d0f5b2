/**
 * "Reviewed = applied" with the engine's update plans (issue 55), under the pinned CLI: the
 * preview a pull request shows is saved (`pulumi preview --save-plan`), and the up after the merge
 * runs it (`pulumi up --plan`). The engine then refuses a program that would do anything the
 * reviewed preview did not show, naming the resource and the property, before that resource is
 * written; the reviewed change itself applies. A change made in the web application between the
 * preview and the up is not the program's: the plan holds the program's inputs, so the up carries
 * out what was reviewed (the provider judges the live service as always). The plan file holds the
 * stack's secrets encrypted, as the state does.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { DatabasePermission, OrganizationPermission } from "../../contract/types";
import { SEEDED } from "../../emulator";
import { RunError } from "../../harness/runResult";
import * as reviewadmin from "../../provider";
import { useProgramWorld } from "../support/programWorld";

const world = useProgramWorld("update-plans");
const ORG = SEEDED.org;
const ALAN = SEEDED.users.member;

/** Alan's organization permissions and his grant on database 2001, as the program declares them. */
const program = (permissions: OrganizationPermission[], grant: DatabasePermission[]) => () => {
  new reviewadmin.OrgMemberPermissions("alan", { organizationId: ORG, email: "alan@northwind.example", permissions });
  new reviewadmin.DatabaseUsers("nvc", { databaseId: SEEDED.databases.open, mode: "additive", users: { [ALAN]: grant } });
};
const permissionsOf = () => world.emu.store.members.find(ORG, ALAN)?.permissions.slice().sort();
const grantOf = () => world.emu.store.databases.findUser(SEEDED.databases.open, ALAN)?.permissions.slice().sort();

describe("update plans: the up carries out the reviewed preview, and nothing else", () => {
  it("applies the reviewed change; refuses a program that deviates from it, naming the resource and the property", async () => {
    const s = world.freshStack();
    await s.up(program(["AI_ADMIN"], ["DB_UPLOAD"]));
    const folder = fs.mkdtempSync(path.join(s.backendDir, "plans-"));

    // The pull request's preview, saved; the merged program is the reviewed one.
    const reviewed = path.join(folder, "reviewed.json");
    await s.preview(program(["AI_ADMIN", "LEGAL_HOLD_ADMIN"], ["DB_UPLOAD"]), { plan: reviewed });
    const saved = fs.readFileSync(reviewed, "utf8");
    expect(saved).not.toContain(world.emu.keys.orgAdmin!); // the key is there encrypted only, as in the state
    // In the web application meanwhile: Alan gets DB_DELETE on 2001 (not the program's: the plan does not cover it).
    world.emu.store.databases.setUser(SEEDED.databases.open, ALAN, ["DB_DELETE", "DB_UPLOAD"]);
    const up = await s.up(program(["AI_ADMIN", "LEGAL_HOLD_ADMIN"], ["DB_UPLOAD"]), { plan: reviewed });
    expect(up.steps.find((x) => x.name === "alan")?.op).toBe("update");
    expect(permissionsOf()).toEqual(["AI_ADMIN", "LEGAL_HOLD_ADMIN"]);

    // A program changed after the review: the engine refuses it against the reviewed plan, before writing Alan.
    const next = path.join(folder, "next.json");
    await s.preview(program(["AI_ADMIN"], ["DB_UPLOAD"]), { plan: next });
    const deviating = await s.up(program(["CLOUD_MANAGEMENT_ADMIN"], ["DB_UPLOAD"]), { plan: next }).catch((e: unknown) => e);
    expect(deviating).toBeInstanceOf(RunError);
    expect((deviating as RunError).message).toMatch(
      /OrgMemberPermissions::alan violates plan: properties changed: ~~permissions\[\{\[\{AI_ADMIN\}\]\}!=\{\[\{CLOUD_MANAGEMENT_ADMIN\}\]\}\]/,
    );
    expect(permissionsOf()).toEqual(["AI_ADMIN", "LEGAL_HOLD_ADMIN"]); // nothing of the deviation written
    expect(grantOf()).toEqual(["DB_DELETE", "DB_UPLOAD"]);
  });
});
