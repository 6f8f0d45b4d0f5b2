/** `pulumi-reviewadmin routes`: the API operations this version uses, as a table. */
import { routeList } from "../contract";
import type { Command } from "./command";

/** The routes command (see its description). */
export const routes: Command = {
  name: "routes",
  summary: "list the API operations this version uses",
  description: `
Lists every operation of the administration API this version of the package uses: its number in
the contract, its operation id, method and path, and who may call it. Use it to check the paths
against your region's API documentation on the first day.`,
  options: {
    json: { type: "boolean", help: "print JSON instead of a table" },
  },
  examples: ["pulumi-reviewadmin routes", "pulumi-reviewadmin routes --json > routes.json"],
  async run(options, io) {
    const rows = routeList.map((r) => ({ id: r.id, operationId: r.operationId, method: r.method, path: r.path, access: r.access }));
    if (options.json) {
      io.out(JSON.stringify(rows, null, 2));
      return 0;
    }
    const w = (k: "id" | "operationId" | "method") => Math.max(...rows.map((r) => r[k].length));
    for (const r of rows) io.out(`${r.id.padEnd(w("id"))}  ${r.operationId.padEnd(w("operationId"))}  ${r.method.padEnd(w("method"))}  ${r.path}`);
    return 0;
  },
};
