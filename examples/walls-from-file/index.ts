/**
 * walls-from-file: the firm's ethical walls, declared from walls.csv, the export of its wall
 * system (Intapp Walls, iManage; the layout is in docs/walls.md), kept next to the program. One
 * EthicalWall per matter: an inclusive matter becomes a matter-team wall, an exclusive one a wall
 * of people. Every row the file cannot make a wall of (an unknown matter, a person the service
 * does not know, a bad row) is logged as a warning with its line, never dropped silently.
 *
 * walls.csv holds a typo'd matter on purpose (line 7: "Northwind v Contoso", no such database)
 * and a misspelt person (line 6: kenn@northwind.example).
 *
 * Config (optional): `wallsPath` (default walls.csv, relative to this folder), `onBreach`
 * (default "report"). Credentials are the provider's stack config.
 */
import * as pulumi from "@pulumi/pulumi";
import * as reviewadmin from "pulumi-reviewadmin";

const config = new pulumi.Config();
const wallsPath = config.get("wallsPath") ?? "walls.csv";
const onBreach = (config.get("onBreach") ?? "report") as reviewadmin.OnBreach;

const file = reviewadmin.getWallsFromFile({ path: wallsPath });

/** The walls declared, by matter. */
export const walls = file.then((f) =>
  f.walls.map((w) => {
    new reviewadmin.EthicalWall(w.name, { ...w.args, onBreach });
    return w.matter;
  }),
);

/** What the file holds that made no wall or needs a look, by line. */
export const problems = file.then((f) =>
  f.problems.map((p) => {
    pulumi.log.warn(`${wallsPath} line ${p.line}: ${p.message}`);
    return `line ${p.line}: ${p.message}`;
  }),
);
