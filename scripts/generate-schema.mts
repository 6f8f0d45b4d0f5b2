/**
 * Writes the Pulumi package schema of the plugin face (provider/plugin/schema.generated.ts) from the
 * same TypeScript the dynamic face is written in, so that each fact stays written once:
 *
 *   resources   every `provider/resources/<file>.ts` whose implementation names a `kind: "<Kind>"`:
 *               inputs from its exported `<Kind>Args` interface, outputs from the state type its
 *               class exposes (`interface <Kind> extends Outputs<State>`); each property's doc is
 *               its JSDoc, `@secret` in it marks a secret
 *   config      the `Settings` interface of provider/settings.ts (the `reviewadmin:*` keys)
 *   types       named string unions become enums (OrganizationPermission, RosterMode...); object
 *               types become object types named after their interface, or `<Kind><Property>`
 *
 * Rules (formats, ranges) are not copied into the schema: the plugin's Check runs the same zod
 * schemas as the dynamic face and names the field and the rule. Numbers named `...Id`, `...Ids`
 * or `...Days` are integers (the API's ids and day counts); every other number is a number.
 *
 *   npm run generate    writes this file and the generated types (scripts/generate-types.mts)
 *
 * It also writes docs/plugin-reference.md (the settings, functions and types a person reads) and the
 * generated regions of docs/resources.md (each resource's inputs and outputs, amid its hand-written
 * examples and rules) from the same schema: one source for both faces' reference.
 *
 * test/contract/pluginSchema.test.ts fails while a committed file differs from what this prints.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as prettier from "prettier";
import ts from "typescript";

/** The repository root (this file is in scripts/). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The generated files, from the repository root. */
export const SCHEMA_FILE = "provider/plugin/schema.generated.ts";
export const REFERENCE_FILE = "docs/plugin-reference.md";
export const RESOURCES_FILE = "docs/resources.md";
/** The package name: type tokens are `reviewadmin:index:<Kind>`. */
const PACKAGE = "reviewadmin";

type Json = Record<string, unknown>;

/** TypeScript's own type helpers: an object type made with one is named after the property that holds it. */
const UTILITY_TYPES = new Set(["Partial", "Required", "Readonly", "Record", "Pick", "Omit"]);

/** Computes the schema from the sources under `root` (the package version from package.json); writes nothing. */
export async function generateSchema(root: string = ROOT): Promise<{ path: string; text: string }[]> {
  const resourcesDir = path.join(root, "provider/resources");
  const files = fs
    .readdirSync(resourcesDir)
    .filter((f) => f.endsWith(".ts"))
    .map((f) => path.join(resourcesDir, f));
  const dataDir = path.join(root, "provider/data");
  const dataFiles = fs
    .readdirSync(dataDir)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".generated.ts"))
    .map((f) => path.join(dataDir, f));
  const settingsFile = path.join(root, "provider/settings.ts");
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(root, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (!config) throw new Error("tsconfig.json could not be read");
  const program = ts.createProgram([...files, ...dataFiles, settingsFile], config.options);
  const checker = program.getTypeChecker();
  const types: Record<string, Json> = {};
  const resources: Record<string, Json> = {};

  const mapper = new TypeMapper(checker, types);
  for (const file of files) {
    const source = program.getSourceFile(file)!;
    const kind = /\bkind: "([A-Z][A-Za-z]+)"/.exec(source.text)?.[1];
    if (!kind) continue;
    const args = findInterface(source, `${kind}Args`);
    const face = source.statements.find(
      (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === kind && !!s.heritageClauses,
    );
    const stateNode = face?.heritageClauses?.[0]?.types[0]?.typeArguments?.[0];
    if (!args || !stateNode)
      throw new Error(
        `${path.relative(root, file)}: kind ${kind} needs an exported ${kind}Args and \`interface ${kind} extends Outputs<State>\``,
      );
    const inputs = mapper.properties(checker.getTypeAtLocation(args), kind);
    const outputs = mapper.properties(checker.getTypeAtLocation(stateNode), kind);
    outputs.properties.schemaVersion = { type: "integer", description: "Version of the state layout this resource was last written with." };
    outputs.properties.appliedAt = {
      type: "string",
      description: "When this program last created or updated the resource (ISO, the service's clock, whole seconds).",
    };
    resources[`${PACKAGE}:index:${kind}`] = {
      description: jsDocOf(face!) ?? jsDocOf(findClass(source, kind)) ?? `${kind}.`,
      inputProperties: inputs.properties,
      requiredInputs: inputs.required,
      properties: outputs.properties,
      required: outputs.required.filter((r) => r !== "appliedAt"),
    };
  }

  // Data sources: every `export const getX: DataSourceFn<GetXArgs, GetXResult>` is the function `reviewadmin:index:getX`.
  const functions: Record<string, Json> = {};
  for (const file of dataFiles) {
    const source = program.getSourceFile(file)!;
    for (const statement of source.statements) {
      if (!ts.isVariableStatement(statement)) continue;
      for (const decl of statement.declarationList.declarations) {
        const typeNode = decl.type;
        if (!ts.isIdentifier(decl.name) || !typeNode || !ts.isTypeReferenceNode(typeNode)) continue;
        if (typeNode.typeName.getText() !== "DataSourceFn" || typeNode.typeArguments?.length !== 2) continue;
        const name = decl.name.text;
        const [argsNode, resultNode] = typeNode.typeArguments;
        const base = upperFirst(name);
        const args = mapper.properties(checker.getTypeFromTypeNode(argsNode!), `${base}Args`);
        const result = mapper.properties(checker.getTypeFromTypeNode(resultNode!), `${base}Result`);
        functions[`${PACKAGE}:index:${name}`] = {
          description: jsDocOf(statement) ?? `${name}.`,
          inputs: { properties: args.properties, ...(args.required.length ? { required: args.required } : {}) },
          outputs: { properties: result.properties, ...(result.required.length ? { required: result.required } : {}) },
        };
      }
    }
  }

  const settings = findInterface(program.getSourceFile(settingsFile)!, "Settings")!;
  const settingsType = mapper.properties(checker.getTypeAtLocation(settings), "Provider");
  // Config text is what `pulumi config set` stores: lists are comma-separated text, as the rule reads them.
  for (const p of Object.values(settingsType.properties))
    if ((p as Json).type === "array") Object.assign(p, { type: "string", items: undefined });
  settingsType.properties.apiKey = { ...settingsType.properties.apiKey, secret: true };
  const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string; description: string };
  const schema = {
    name: PACKAGE,
    displayName: "Review platform administration",
    version: pkg.version,
    description:
      "Access as code for the administration API of a legal document review platform: organizations, databases, walls and expiring access.",
    keywords: ["category/utility", "kind/native"],
    license: "Apache-2.0",
    repository: "https://github.com/pulumi-reviewadmin/pulumi-reviewadmin",
    config: { variables: withoutUndefined(settingsType.properties), defaults: [] },
    provider: {
      description:
        "The reviewadmin provider: one API key and one base URL (keys are per region). Explicit providers with their own key and base URL work side by side.",
      inputProperties: withoutUndefined(settingsType.properties),
      properties: {},
    },
    resources: sortKeys(resources),
    functions: sortKeys(functions),
    types: sortKeys(types),
    language: {
      nodejs: { packageName: "@pulumi-reviewadmin/sdk", respectSchemaVersion: true },
      go: { importBasePath: "example.com/reviewadmin/sdk/go/reviewadmin" },
    },
  };
  const reference = referenceOf(schema as unknown as SchemaShape);
  const header =
    "// Generated by scripts/generate-schema.mts from the resources' Args and state types: do not edit. Run `npm run generate` after changing them.\n\n" +
    "/** The Pulumi package schema of the plugin face (`pulumi package get-schema`). */\n";
  const body = `export const SCHEMA = ${JSON.stringify(schema, null, 2)} as const;\n`;
  const options = (await prettier.resolveConfig(path.join(root, SCHEMA_FILE))) ?? {};
  return [
    { path: SCHEMA_FILE, text: await prettier.format(header + body, { ...options, parser: "typescript" }) },
    { path: REFERENCE_FILE, text: reference },
    {
      path: RESOURCES_FILE,
      text: resourcesDocOf(schema as unknown as SchemaShape, fs.readFileSync(path.join(root, RESOURCES_FILE), "utf8")),
    },
  ];
}

interface PropertyShape {
  type?: string;
  $ref?: string;
  items?: PropertyShape;
  additionalProperties?: PropertyShape;
  oneOf?: PropertyShape[];
  description?: string;
  secret?: boolean;
}
interface SchemaShape {
  config: { variables: Record<string, PropertyShape> };
  resources: Record<
    string,
    {
      description: string;
      inputProperties: Record<string, PropertyShape>;
      requiredInputs: string[];
      properties: Record<string, PropertyShape>;
    }
  >;
  functions: Record<
    string,
    {
      description: string;
      inputs: { properties: Record<string, PropertyShape>; required?: string[] };
      outputs: { properties: Record<string, PropertyShape> };
    }
  >;
  types: Record<string, { type: string; enum?: { value: string }[]; properties?: Record<string, PropertyShape> }>;
}

/** The Markdown table of a set of properties; types named by the schema link to `typePage` (plugin-reference.md, or "" for the same page). */
function tableOf(props: Record<string, PropertyShape>, required: readonly string[] = [], typePage = ""): string {
  const typeText = (p: PropertyShape): string => {
    if (p.$ref)
      return p.$ref.startsWith("#/types/")
        ? `[${p.$ref.split(":").at(-1)}](${typePage}#${p.$ref.split(":").at(-1)!.toLowerCase()})`
        : "any";
    if (p.oneOf) return p.oneOf.map(typeText).join(" or ");
    if (p.type === "array") return `list of ${typeText(p.items ?? {})}`;
    if (p.type === "object" && p.additionalProperties) return `map of ${typeText(p.additionalProperties)}`;
    return p.type ?? "any";
  };
  const oneLine = (t: string | undefined) => (t ?? "").replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|");
  return Object.keys(props).length === 0
    ? "(none)\n"
    : "| name | type | |\n|---|---|---|\n" +
        Object.entries(props)
          .map(
            ([n, p]) =>
              `| \`${n}\`${required.includes(n) ? " (required)" : ""} | ${typeText(p)}${p.secret ? " (secret)" : ""} | ${oneLine(p.description)} |`,
          )
          .join("\n") +
        "\n";
}

/** The plugin face's reference in Markdown: every setting, function and type, from the schema; the resources are in docs/resources.md. */
function referenceOf(schema: SchemaShape): string {
  let out =
    "<!-- Generated by scripts/generate-schema.mts from the schema: do not edit. Run `npm run generate`. -->\n\n" +
    "# Plugin face reference\n\n" +
    "Every setting, function and type of the `reviewadmin` provider plugin (docs/plugin.md), as its schema\n" +
    "(`pulumi package get-schema`) describes them. Type tokens are `reviewadmin:index:<Name>`.\n\n" +
    "## Provider settings\n\n" +
    tableOf(schema.config.variables) +
    "\n## Resources\n\n" +
    "Each resource's inputs and outputs, from the same schema, are in [resources.md](resources.md), with examples and\n" +
    "what each one does:\n\n";
  for (const token of Object.keys(schema.resources)) {
    const kind = token.split(":").at(-1)!;
    out += `- [${kind}](resources.md#${kind.toLowerCase()}): \`${token}\`\n`;
  }
  out += "\n## Functions\n\n";
  for (const [token, f] of Object.entries(schema.functions)) {
    out += `### ${token.split(":").at(-1)}\n\n\`${token}\`\n\n${f.description}\n\n**Arguments**\n\n${tableOf(f.inputs.properties, f.inputs.required)}\n**Result**\n\n${tableOf(f.outputs.properties)}\n`;
  }
  out += "## Types\n\n";
  for (const [token, t] of Object.entries(schema.types)) {
    const name = token.split(":").at(-1)!;
    out += `### ${name}\n\n`;
    out += t.enum ? `One of ${t.enum.map((e) => `\`${e.value}\``).join(", ")}.\n\n` : tableOf(t.properties ?? {}) + "\n";
  }
  return out.replace(/\n+$/, "\n");
}

/**
 * docs/resources.md, the resources' reference for both faces, with each `<!-- schema: Kind -->`
 * ... `<!-- /schema -->` region written from the schema (the resource's description, type token,
 * inputs and outputs) and the hand-written text around the regions kept: every resource of the
 * schema has one region, so a new resource cannot go undocumented.
 */
export function resourcesDocOf(schema: SchemaShape, text: string): string {
  const seen: string[] = [];
  const out = text.replace(/<!-- schema: (\w+) -->\n[\s\S]*?<!-- \/schema -->/g, (_all, kind: string) => {
    const token = `${PACKAGE}:index:${kind}`;
    const r = schema.resources[token];
    if (!r || seen.includes(kind))
      throw new Error(`${RESOURCES_FILE}: <!-- schema: ${kind} --> names ${r ? "a resource twice" : "no resource"}`);
    seen.push(kind);
    const outputsOnly = Object.fromEntries(Object.entries(r.properties).filter(([n]) => !(n in r.inputProperties)));
    return (
      `<!-- schema: ${kind} -->\n<!-- Written by \`npm run generate\` from the resource's Args and state types (their JSDoc): edit those, not this. -->\n\n` +
      `\`${token}\` (plugin face), \`reviewadmin.${kind}\` (TypeScript)\n\n${r.description}\n\n` +
      `**Inputs**\n\n${tableOf(r.inputProperties, r.requiredInputs, "plugin-reference.md")}\n` +
      `**Outputs** (besides the inputs)\n\n${tableOf(outputsOnly, [], "plugin-reference.md")}<!-- /schema -->`
    );
  });
  const missing = Object.keys(schema.resources)
    .map((t) => t.split(":").at(-1)!)
    .filter((k) => !seen.includes(k));
  if (missing.length > 0)
    throw new Error(
      `${RESOURCES_FILE} has no <!-- schema: Kind --> <!-- /schema --> region for ${missing.join(", ")}: add one where it is described`,
    );
  return out;
}

/** Turns TypeScript types into schema property types, registering named object and enum types. */
class TypeMapper {
  private readonly checker: ts.TypeChecker;
  private readonly types: Record<string, Json>;
  constructor(checker: ts.TypeChecker, types: Record<string, Json>) {
    this.checker = checker;
    this.types = types;
  }

  /** The properties of an object type (pulumi.Input unwrapped), and which are required. */
  properties(type: ts.Type, owner: string): { properties: Record<string, Json>; required: string[] } {
    const properties: Record<string, Json> = {};
    const required: string[] = [];
    for (const symbol of this.checker.getPropertiesOfType(type)) {
      const name = symbol.getName();
      const t = this.checker.getTypeOfSymbol(symbol);
      const doc = ts.displayPartsToString(symbol.getDocumentationComment(this.checker)).trim();
      const secret = symbol.getJsDocTags(this.checker).some((tag) => tag.name === "secret");
      const optional = (symbol.flags & ts.SymbolFlags.Optional) !== 0;
      properties[name] = {
        ...this.typeOf(t, owner + upperFirst(name), name, declaredName(symbol)),
        ...(doc ? { description: doc } : {}),
        ...(secret ? { secret: true } : {}),
      };
      if (!optional) required.push(name);
    }
    return { properties, required };
  }

  /** The schema type of one value: Input, Promise and Output layers and null/undefined dropped. */
  typeOf(type: ts.Type, nameIfObject: string, property: string, hint?: string): Json {
    const parts = this.plain(type);
    if (parts.length === 0) return { $ref: "pulumi.json#/Any" };
    if (parts.every((p) => p.flags & ts.TypeFlags.BooleanLike)) return { type: "boolean" };
    if (parts.every((p) => p.isStringLiteral())) return this.enumOf(type, parts as ts.StringLiteralType[], hint);
    if (parts.length > 1) {
      const strings = parts.filter((p) => p.flags & ts.TypeFlags.StringLike);
      if (strings.length === parts.length) return { type: "string" };
      return { oneOf: parts.map((p, i) => this.typeOf(p, `${nameIfObject}${i === 0 ? "" : i + 1}`, property)) };
    }
    const t = parts[0]!;
    if (t.flags & ts.TypeFlags.StringLike) return { type: "string" };
    // A Date crosses the wire as its JSON, an ISO string.
    if (t.getSymbol()?.getName() === "Date") return { type: "string" };
    if (t.flags & ts.TypeFlags.NumberLike) return { type: /(Id|Ids|Days)$/.test(property) ? "integer" : "number" };
    if (this.checker.isArrayType(t)) {
      const item = (t as ts.TypeReference).typeArguments?.[0];
      return {
        type: "array",
        items: item ? this.typeOf(item, singular(nameIfObject), singular(property), hint) : { $ref: "pulumi.json#/Any" },
      };
    }
    const index = this.checker.getIndexInfosOfType(t)[0];
    if (index && this.checker.getPropertiesOfType(t).length === 0) {
      return { type: "object", additionalProperties: this.typeOf(index.type, singular(nameIfObject), property) };
    }
    if (t.flags & ts.TypeFlags.Object || t.isIntersection()) {
      const symbol = t.aliasSymbol ?? t.getSymbol();
      const named = !t.isIntersection() && symbol && !symbol.getName().startsWith("__") && !UTILITY_TYPES.has(symbol.getName());
      const own = named ? symbol.getName() : nameIfObject;
      const token = `${PACKAGE}:index:${own}`;
      if (!this.types[token]) {
        this.types[token] = { type: "object" }; // placeholder first: a type may refer to itself
        const { properties, required } = this.properties(t, own);
        this.types[token] = { type: "object", properties, ...(required.length ? { required } : {}) };
      }
      return { $ref: `#/types/${token}` };
    }
    return { $ref: "pulumi.json#/Any" };
  }

  /** A named union of strings as an enum type (Input<RosterMode> → RosterMode); an anonymous one as a string. */
  private enumOf(type: ts.Type, parts: ts.StringLiteralType[], hint: string | undefined): Json {
    const inner = type.aliasSymbol?.getName() === "Input" ? type.aliasTypeArguments?.[0] : type;
    const alias = inner?.aliasSymbol?.getName() ?? hint;
    const values = parts.map((p) => p.value).sort();
    if (!alias || alias === "Input") return { type: "string" };
    const token = `${PACKAGE}:index:${alias}`;
    this.types[token] ??= { type: "string", enum: values.map((value) => ({ value, ...enumName(value) })) };
    return { $ref: `#/types/${token}` };
  }

  /** The members of a type once Input/Promise/Output layers, null and undefined are dropped. */
  private plain(type: ts.Type): ts.Type[] {
    const parts = type.isUnion() ? type.types : [type];
    const out: ts.Type[] = [];
    let sawBoolean = false;
    for (const p of parts) {
      if (p.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null | ts.TypeFlags.Void)) continue;
      const name = p.getSymbol()?.getName();
      if (name === "Promise" || name === "OutputInstance" || name === "Output") continue;
      if (p.flags & ts.TypeFlags.BooleanLiteral) {
        if (!sawBoolean) out.push(this.checker.getBooleanType());
        sawBoolean = true;
        continue;
      }
      out.push(p);
    }
    return out;
  }
}

/**
 * The type name a property is declared with, under Input<> and array layers (`Input<RosterMode>`,
 * `Input<Input<OrganizationPermission>[]>`): an alias the checker may have expanded away.
 */
function declaredName(symbol: ts.Symbol): string | undefined {
  const decl = symbol.valueDeclaration;
  let node = decl && (ts.isPropertySignature(decl) || ts.isPropertyDeclaration(decl)) ? decl.type : undefined;
  while (node) {
    if (ts.isArrayTypeNode(node)) node = node.elementType;
    else if (ts.isUnionTypeNode(node) && node.types.length === 1) node = node.types[0];
    else if (ts.isTypeReferenceNode(node)) {
      const name = ts.isQualifiedName(node.typeName) ? node.typeName.right.text : node.typeName.text;
      if ((name === "Input" || name === "Array") && node.typeArguments?.length === 1) node = node.typeArguments[0];
      else return name;
    } else return undefined;
  }
  return undefined;
}

/**
 * A name for an enum value that is not an identifier (`dd/MM/yyyy`): SDKs name each value after it,
 * and `dd/MM/yyyy` and `dd.MM.yyyy` would both become `Dd_MM_yyyy` in Go.
 */
function enumName(value: string): { name?: string } {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) return {};
  const words: Record<string, string> = { "/": "Slash", ".": "Dot", "-": "Dash", " ": "Space" };
  return { name: value.replace(/[^A-Za-z0-9_]/g, (c) => words[c] ?? "_") };
}

function findInterface(source: ts.SourceFile, name: string): ts.InterfaceDeclaration | undefined {
  return source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
}

function findClass(source: ts.SourceFile, name: string): ts.ClassDeclaration | undefined {
  return source.statements.find((s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name?.text === name);
}

function jsDocOf(node: ts.Node | undefined): string | undefined {
  if (!node) return undefined;
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  return ts.getTextOfJSDocComment(docs.at(-1)?.comment)?.trim() || undefined;
}

function upperFirst(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** "UserIdentifiers" → "UserIdentifier": the name of one item of a list. */
function singular(s: string): string {
  return s.endsWith("ies") ? s.slice(0, -3) + "y" : s.endsWith("s") && !s.endsWith("ss") ? s.slice(0, -1) : s;
}

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function withoutUndefined(o: Record<string, Json>): Record<string, Json> {
  return JSON.parse(JSON.stringify(o)) as Record<string, Json>;
}

/** Writes the generated files that differ; returns their paths. */
export async function writeSchema(root: string = ROOT): Promise<string[]> {
  const changed: string[] = [];
  for (const file of await generateSchema(root)) {
    const target = path.join(root, file.path);
    if (fs.existsSync(target) && fs.readFileSync(target, "utf8") === file.text) continue;
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, file.text);
    changed.push(file.path);
  }
  return changed;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const changed = await writeSchema();
  console.log(changed.length ? `wrote ${changed.join(", ")}` : "the schema and its reference are up to date");
}
