/**
 * Expiring access under the real engine (issue 26, provider/resources/support/expiry.ts): a
 * DatabaseUsers entry ending tomorrow is listed as expiring by today's preview and in the stack's
 * outputs; once the service's clock (the emulator's, moved through its control API) has passed
 * the date, preview says it will be removed and up removes it, even from an additive roster,
 * with exactly one request that writes and nothing else changed. A later up changes nothing.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SEEDED } from "../../emulator";
import * as reviewadmin from "../../provider";
import { control } from "../support/emulatorHttp";
import { useProgramWorld, writesFrom } from "../support/programWorld";

const DB = SEEDED.databases.open;
const world = useProgramWorld("expiry");

const logsOf = (r: { logs: { line: string }[] }) => r.logs.map((l) => l.line).join("\n");
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const grants = () => Object.fromEntries(world.emu.store.databases.usersOf(DB).map((u) => [u.userId, [...u.permissions].sort()]));

// The plugin face's executable, found on PATH as Pulumi finds an installed plugin (docs/plugin.md).
process.env.PATH = `${path.resolve(__dirname, "../../plugin")}${path.delimiter}${process.env.PATH}`;
/** The roster's class on either face. */
type Face = Pick<typeof reviewadmin.plugin, "DatabaseUsers">;
const FACES: [string, Face][] = [
  ["dynamic face", reviewadmin as Face],
  ["plugin face", reviewadmin.plugin],
];

describe.each(FACES)("an expiring DatabaseUsers entry (%s)", (_face, ra) => {
  it("is listed as expiring before its date, then removed by up once the service's clock passes it", async () => {
    const s = world.freshStack();
    const store = world.emu.store;
    const tomorrow = day(store.clock.now() + 86_400_000);
    // A member with no grant on the database gets one that ends tomorrow; everyone there stays as is.
    const guest = store.members.of(SEEDED.org).find((m) => !store.databases.findUser(DB, m.userId))!.userId;
    const there = Object.fromEntries(store.databases.usersOf(DB).map((u) => [String(u.userId), [...u.permissions]]));
    const program = () => {
      const roster = new ra.DatabaseUsers("nvc", {
        databaseId: DB,
        mode: "additive",
        users: { ...there, [String(guest)]: { permissions: ["DB_UPLOAD"], expiresOn: tomorrow } },
      });
      return { expiringSoon: roster.expiringSoon };
    };
    try {
      const created = await s.up(program);
      expect(store.databases.findUser(DB, guest)?.permissions).toEqual(["DB_UPLOAD"]);
      expect(created.outputs.expiringSoon).toEqual({ [String(guest)]: tomorrow });

      const today = await s.preview(program);
      expect(logsOf(today)).toMatch(new RegExp(`access expiring soon: user ${guest} expires on ${tomorrow} \\(in 1 day\\)`));
      expect(today.changes).toBe(0);

      const moved = await control(world.emu.url, "POST", "/clock", { advanceDays: 2 });
      expect(moved.status).toBe(200);
      const before = grants();

      const preview = await s.preview(program);
      // The roster's preview names each removal on a line of its own, with why.
      expect(logsOf(preview)).toMatch(
        new RegExp(`DatabaseUsers of database ${DB}: 1 user changes\n\\s+- user ${guest}\\b[^\n]*\\(expired on ${tomorrow}\\)`),
      );
      expect(preview.steps.find((st) => st.name === "nvc")?.op).toBe("update");

      const writes = writesFrom(world.emu);
      const up = await s.up(program);
      expect(writes()).toEqual(["DELETE DeleteDatabaseUser"]);
      const { [guest]: _removed, ...others } = before;
      expect(grants()).toEqual(others);
      expect(up.outputs.expiringSoon).toBeUndefined();

      // The date still past: nothing more to do.
      const later = writesFrom(world.emu);
      await s.preview(program, { expectNoChanges: true });
      await s.up(program);
      expect(later()).toEqual([]);
    } finally {
      await control(world.emu.url, "POST", "/clock", { advanceMs: -world.emu.store.clock.offsetMs });
    }
  });
});
