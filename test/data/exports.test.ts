/**
 * The data sources' public surface: the package root re-exports every data source (both lists
 * are written by name, so they can drift apart), and none of the helpers that once leaked
 * through `export *` (CHANGELOG: "Public surface: explicit exports").
 */
import { describe, expect, it } from "vitest";
import * as root from "../../provider";
import * as data from "../../provider/data";

describe("data source exports", () => {
  it("the package root exports every run-time name of provider/data", () => {
    const missing = Object.keys(data).filter((name) => !(name in root));
    expect(missing).toEqual([]);
  });

  it("internal helpers stay internal", () => {
    for (const name of ["filterMembers", "filterProjects", "resolveMonth", "monthsEndingAt", "currentMonthUtc", "ACCESS_CSV_COLUMNS"]) {
      expect(name in root, name).toBe(false);
    }
  });

  it("each data source keeps its name at run time", () => {
    expect(data.getOrganizationMembers.name).toBe("getOrganizationMembers");
    expect(data.getAccessMatrix.name).toBe("getAccessMatrix");
  });
});
