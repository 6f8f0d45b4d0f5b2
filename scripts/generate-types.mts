/**
 * Writes the package's public types from the zod schemas that validate at run time, as plain
 * TypeScript that imports nothing: published declarations must not import zod (zod 4's own
 * declarations fail to type-check in a consumer compiled without esModuleInterop, the classic
 * `pulumi new typescript` tsconfig), yet each fact stays written once, in its schema. Like
 * octokit's endpoint types, the output is committed and regenerated, never edited:
 *
 *   contract/types.generated.ts          every schema of contract/schemas.ts that has a type of its
 *                                        own name (z.output), and `Operations`: each route's params
 *                                        and body as a caller writes them (z.input), its data
 *                                        (z.output), and its params and body as a server has them
 *                                        once parsed (z.output: the emulator's handlers), from
 *                                        contract/routes.ts
 *   provider/data/argTypes.generated.ts  every schema of provider/data/ whose JSDoc has
 *                                        `@inputType Name` (z.input) or `@outputType Name` (z.output)
 *
 * The types are printed by the TypeScript checker from `z.input<typeof Schema>` and
 * `z.output<typeof Schema>`, with the JSDoc of each schema and of each field; an entity's
 * structure met anywhere else is printed as the entity's name.
 *
 *   npm run generate    writes the files (after changing a schema, a route or a tag)
 *
 * test/contract/generatedTypes.test.ts runs generateTypes() and fails while a committed file differs.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as prettier from "prettier";
import ts from "typescript";

/** One generated file: its path from the repository root, and its text. */
export interface GeneratedFile {
  path: string;
  text: string;
}

/** The repository root (this file is in scripts/). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const CONTRACT_TYPES = "contract/types.generated.ts";
const ARG_TYPES = "provider/data/argTypes.generated.ts";
const SCHEMAS = "contract/schemas.ts";
const ROUTES = "contract/routes.ts";
const DATA_DIR = "provider/data";

/** A type to print: `expr` is evaluated at the end of `file`, where the schema's name is in scope. */
interface Probe {
  name: string;
  file: string;
  expr: string;
  doc?: string;
}

/** Computes every generated file from the sources under `root`; writes nothing. */
export async function generateTypes(root: string = ROOT): Promise<GeneratedFile[]> {
  const entities = entityProbes(root);
  const operations = operationProbes(root);
  const dataArgs = dataArgProbes(root);
  const checker = new ProbeChecker(root, [
    ...entities,
    ...operations.flatMap((o) => [o.params, o.body, o.data, o.parsedParams, o.parsedBody]),
    ...dataArgs,
  ]);

  // Entities first, in the schemas' order (a schema can only use one declared before it), so
  // that each later structure equal to an entity prints as its name.
  const printer = new Printer(checker.checker, checker.sourceText);
  let contract = "";
  for (const e of entities) {
    const type = checker.typeOf(e);
    contract += `${docComment(e.doc, "")}export type ${e.name} = ${printer.print(type, "", { top: true })};\n\n`;
    printer.name(type, e.name);
  }
  contract += docComment(
    "Every operation of the route table (contract/routes.ts), by operation id: its path and query parameters as a caller\n" +
      "writes them, its JSON body (`never` when it takes none, FormData for a multipart upload), the `data` of its answer,\n" +
      "and its parameters and JSON body as a server has them once the route's schemas parsed them (ids as numbers;\n" +
      "`never` for no JSON body, a multipart upload included).",
    "",
  );
  contract += "export interface Operations {\n";
  for (const o of operations) {
    contract +=
      `${docComment(o.doc, "  ")}  ${o.id}: {\n` +
      `    params: ${printer.print(checker.typeOf(o.params), "    ")};\n` +
      `    body: ${printer.print(checker.typeOf(o.body), "    ")};\n` +
      `    data: ${printer.print(checker.typeOf(o.data), "    ")};\n` +
      `    parsedParams: ${printer.print(checker.typeOf(o.parsedParams), "    ")};\n` +
      `    parsedBody: ${printer.print(checker.typeOf(o.parsedBody), "    ")};\n` +
      "  };\n";
  }
  contract += "}\n";

  let args = "";
  printer.used.clear();
  for (const a of dataArgs) {
    args += `${docComment(a.doc, "")}export type ${a.name} = ${printer.print(checker.typeOf(a), "", { top: true })};\n\n`;
  }
  const imports = [...printer.used].sort();

  return Promise.all([
    format(root, CONTRACT_TYPES, header(`${SCHEMAS} and ${ROUTES}`) + contract),
    format(
      root,
      ARG_TYPES,
      header(`the tagged schemas of ${DATA_DIR}/`) +
        (imports.length ? `import type { ${imports.join(", ")} } from "../../contract/types.generated";\n\n` : "") +
        args,
    ),
  ]);
}

/** Writes every generated file under `root`; returns the paths that changed. */
export async function writeGeneratedTypes(root: string = ROOT): Promise<string[]> {
  const changed: string[] = [];
  for (const file of await generateTypes(root)) {
    const target = path.join(root, file.path);
    if (fs.existsSync(target) && fs.readFileSync(target, "utf8") === file.text) continue;
    fs.writeFileSync(target, file.text);
    changed.push(file.path);
  }
  return changed;
}

function header(from: string): string {
  return `// Generated from ${from} by scripts/generate-types.mts: do not edit. Run \`npm run generate\` after changing them.\n\n`;
}

async function format(root: string, file: string, text: string): Promise<GeneratedFile> {
  const filepath = path.join(root, file);
  const options = (await prettier.resolveConfig(filepath)) ?? {};
  return { path: file, text: await prettier.format(text, { ...options, filepath }) };
}

// ------------------------------------------------------------------------------------------------
// What to print
// ------------------------------------------------------------------------------------------------

function parse(root: string, file: string): ts.SourceFile {
  return ts.createSourceFile(file, fs.readFileSync(path.join(root, file), "utf8"), ts.ScriptTarget.Latest, true);
}

function isExported(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && !!ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

/** The JSDoc text of a declaration (without its tags), or undefined. */
function jsDocText(node: ts.Node): string | undefined {
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  const text = ts.getTextOfJSDocComment(docs.at(-1)?.comment)?.trim();
  return text || undefined;
}

/** Every `export const X` of contract/schemas.ts that also has an `export type X`, in source order. */
function entityProbes(root: string): Probe[] {
  const source = parse(root, SCHEMAS);
  const typeNames = new Set(
    source.statements.filter((s) => ts.isTypeAliasDeclaration(s) && isExported(s)).map((s) => (s as ts.TypeAliasDeclaration).name.text),
  );
  const probes: Probe[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement) || !isExported(statement)) continue;
    for (const decl of statement.declarationList.declarations) {
      if (!ts.isIdentifier(decl.name) || !typeNames.has(decl.name.text)) continue;
      const name = decl.name.text;
      probes.push({ name, file: SCHEMAS, expr: `__z.output<typeof ${name}>`, doc: jsDocText(decl) });
    }
  }
  return probes;
}

interface OperationProbe {
  id: string;
  doc: string;
  params: Probe;
  body: Probe;
  data: Probe;
  parsedParams: Probe;
  parsedBody: Probe;
}

/** Each row of `routes` in contract/routes.ts: its params, body and data (and both parsed), and its number and summary as its doc. */
function operationProbes(root: string): OperationProbe[] {
  const source = parse(root, ROUTES);
  let table: ts.ObjectLiteralExpression | undefined;
  source.forEachChild(function find(node): void {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === "routes" && node.initializer) {
      let init: ts.Expression = node.initializer;
      while (ts.isAsExpression(init) || ts.isSatisfiesExpression(init) || ts.isParenthesizedExpression(init)) init = init.expression;
      if (ts.isObjectLiteralExpression(init)) table = init;
    } else node.forEachChild(find);
  });
  if (!table) throw new Error(`${ROUTES}: no object literal \`routes\``);
  return table.properties.map((p) => {
    if (!ts.isPropertyAssignment(p) || !ts.isIdentifier(p.name))
      throw new Error(`${ROUTES}: every row of routes must be \`Name: route({...})\``);
    const id = p.name.text;
    const route = `(typeof routes)["${id}"]`;
    const body = `${route} extends { body: infer B } ? (B extends __z.ZodType ? __z.input<B> : B extends "multipart" ? FormData : never) : never`;
    const parsedBody = `${route} extends { body: infer B } ? (B extends __z.ZodType ? __z.output<B> : never) : never`;
    const probe = (part: string, expr: string): Probe => ({ name: `${id}_${part}`, file: ROUTES, expr });
    return {
      id,
      doc: `${literalField(p, "id")}: ${literalField(p, "summary")}.`,
      params: probe("params", `__z.input<${route}["params"]>`),
      body: probe("body", body),
      data: probe("data", `__z.output<${route}["data"]>`),
      parsedParams: probe("parsedParams", `__z.output<${route}["params"]>`),
      parsedBody: probe("parsedBody", parsedBody),
    };
  });
}

/** The string literal of field `name` in a route row `route({ ... })`. */
function literalField(row: ts.PropertyAssignment, name: string): string {
  const call = row.initializer;
  const object = ts.isCallExpression(call) ? call.arguments[0] : undefined;
  const field =
    object && ts.isObjectLiteralExpression(object)
      ? object.properties.find((p) => p.name && ts.isIdentifier(p.name) && p.name.text === name)
      : undefined;
  if (!field || !ts.isPropertyAssignment(field) || !ts.isStringLiteralLike(field.initializer)) {
    throw new Error(`${ROUTES}: row ${row.name.getText()} has no string ${name}`);
  }
  return field.initializer.text;
}

/** Every schema const of provider/data/*.ts tagged `@inputType Name` or `@outputType Name`, by file then position. */
function dataArgProbes(root: string): Probe[] {
  const probes: Probe[] = [];
  const files = fs
    .readdirSync(path.join(root, DATA_DIR))
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".generated.ts"))
    .sort();
  for (const f of files) {
    const file = `${DATA_DIR}/${f}`;
    parse(root, file).forEachChild(function find(node): void {
      if (!ts.isVariableDeclaration(node)) {
        node.forEachChild(find);
        return;
      }
      for (const tag of ts.getJSDocTags(node)) {
        const mode = tag.tagName.text === "inputType" ? "input" : tag.tagName.text === "outputType" ? "output" : undefined;
        if (!mode) continue;
        const name = ts.getTextOfJSDocComment(tag.comment)?.trim() ?? "";
        if (!/^[A-Z]\w*$/.test(name) || !ts.isIdentifier(node.name))
          throw new Error(`${file}: @${tag.tagName.text} needs a type name, e.g. @${tag.tagName.text} GetThingArgs`);
        probes.push({ name, file, expr: `__z.${mode}<typeof ${node.name.text}>`, doc: jsDocText(node) });
      }
    });
  }
  const seen = new Set<string>();
  for (const p of probes) {
    if (seen.has(p.name)) throw new Error(`${p.file}: type ${p.name} is generated twice`);
    seen.add(p.name);
  }
  return probes;
}

// ------------------------------------------------------------------------------------------------
// The checker over the sources, each probed file with its probes appended
// ------------------------------------------------------------------------------------------------

class ProbeChecker {
  readonly checker: ts.TypeChecker;
  /** The probed files' texts, in the order of the probes. */
  readonly sourceText: string;
  readonly #aliases = new Map<Probe, ts.TypeAliasDeclaration>();

  constructor(root: string, probes: Probe[]) {
    const config = ts.getParsedCommandLineOfConfigFile(
      path.join(root, "tsconfig.json"),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail(d) },
    );
    if (!config) throw new Error("tsconfig.json could not be read");
    const byFile = new Map<string, Probe[]>();
    for (const p of probes) byFile.set(path.join(root, p.file), [...(byFile.get(path.join(root, p.file)) ?? []), p]);
    const aliasName = (i: number) => `__generated_${i}`;
    const indexOf = new Map(probes.map((p, i) => [p, i]));

    const host = ts.createCompilerHost(config.options);
    const read = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, language, onError, create) => {
      const mine = byFile.get(path.resolve(fileName));
      if (!mine) return read(fileName, language, onError, create);
      // Appended, so every position of the original text (and its JSDoc) stays where it was.
      const appended = [
        '\nimport type { z as __z } from "zod";',
        ...mine.map((p) => `export type ${aliasName(indexOf.get(p)!)} = ${p.expr};`),
      ].join("\n");
      return ts.createSourceFile(fileName, fs.readFileSync(fileName, "utf8") + appended + "\n", language, true);
    };
    this.sourceText = [...byFile.keys()].map((f) => fs.readFileSync(f, "utf8")).join("\n");
    const program = ts.createProgram([...byFile.keys()], config.options, host);
    this.checker = program.getTypeChecker();
    for (const [file, mine] of byFile) {
      const source = program.getSourceFile(file);
      if (!source) throw new Error(`${file} is not in the program`);
      for (const p of mine) {
        const alias = source.statements.find(
          (s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === aliasName(indexOf.get(p)!),
        );
        if (!alias) throw new Error(`${file}: probe ${p.name} is missing`);
        this.#aliases.set(p, alias);
      }
    }
  }

  /** The type a probe names; a probe that does not compile (a schema renamed, a tag on something else) fails rather than print `any`. */
  typeOf(probe: Probe): ts.Type {
    const type = this.checker.getTypeAtLocation(this.#aliases.get(probe)!.name);
    if (type.flags & ts.TypeFlags.Any) throw new Error(`${probe.file}: ${probe.expr} does not name a schema's type (${probe.name})`);
    return type;
  }
}

function fail(d: ts.Diagnostic): never {
  throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

// ------------------------------------------------------------------------------------------------
// Printing a type as TypeScript that needs nothing but the entity names
// ------------------------------------------------------------------------------------------------

class Printer {
  /** Entity names by the one-line text of their structure. */
  readonly #names = new Map<string, string>();
  /** The entity names printed since the last clear(). */
  readonly used = new Set<string>();

  readonly #checker: ts.TypeChecker;
  /** The probed sources, one after the other: where literals are first written. */
  readonly #sourceText: string;

  constructor(checker: ts.TypeChecker, sourceText: string) {
    this.#checker = checker;
    this.#sourceText = sourceText;
  }

  /** From now on, a structure equal to `type` prints as `name`. */
  name(type: ts.Type, name: string): void {
    this.#names.set(this.print(type, "", { top: true, inline: true }), name);
  }

  /**
   * `type` as TypeScript. `indent`: the indentation of the line it starts on. `top`: the
   * entity's own definition (never printed as its name). `inline`: one line, no JSDoc (the key
   * that finds an entity's name). `optional`: the type of an optional property, printed without
   * `| undefined` (what `?` says already, without exactOptionalPropertyTypes).
   */
  print(type: ts.Type, indent: string, opts: PrintOptions = {}): string {
    const c = this.#checker;
    if (type.isUnion()) return this.#union(type.types, indent, opts);
    if (type.isStringLiteral()) return JSON.stringify(type.value);
    if (type.isNumberLiteral()) return String(type.value);
    if (type.flags & INTRINSIC) return c.typeToString(type);
    if (c.isArrayType(type)) {
      const element = this.print(c.getTypeArguments(type as ts.TypeReference)[0]!, indent, { inline: opts.inline });
      const readonly = type.getSymbol()?.name === "ReadonlyArray" ? "readonly " : "";
      return `${readonly}${/[|&]/.test(element) && !/^[{(]/.test(element) ? `(${element})` : element}[]`;
    }
    if (c.isTupleType(type))
      return `[${c
        .getTypeArguments(type as ts.TypeReference)
        .map((t) => this.print(t, indent, { inline: opts.inline }))
        .join(", ")}]`;
    if (type.flags & ts.TypeFlags.Object && isGlobalType(type)) return c.typeToString(type);
    if (type.flags & ts.TypeFlags.Object || (type.isIntersection() && type.types.every((t) => t.flags & ts.TypeFlags.Object))) {
      return this.#named(opts, () => this.#object(type, "", true)) ?? this.#object(type, indent, !!opts.inline);
    }
    throw new Error(`cannot print type ${c.typeToString(type)}`);
  }

  /**
   * String literals first, in the order the sources first write them (an enum's order, not the
   * checker's, which depends on what it happened to meet first), then the other members.
   */
  #literalsInSourceOrder(types: readonly ts.Type[]): ts.Type[] {
    const literals = types.filter((t) => t.isStringLiteral());
    const at = (t: ts.StringLiteralType) => {
      const i = this.#sourceText.indexOf(JSON.stringify(t.value));
      return i < 0 ? Infinity : i;
    };
    literals.sort((a, b) => at(a) - at(b) || (a.value < b.value ? -1 : 1));
    return [...literals, ...types.filter((t) => !t.isStringLiteral())];
  }

  /** The entity name of a structure (not at an entity's own definition), or undefined. */
  #named(opts: PrintOptions, inlineText: () => string): string | undefined {
    if (opts.top) return undefined;
    const name = this.#names.get(inlineText());
    if (name) this.used.add(name);
    return name;
  }

  #union(types: readonly ts.Type[], indent: string, opts: PrintOptions): string {
    const texts = (inline: boolean) => {
      const out: string[] = [];
      const booleans = types.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral);
      for (const t of this.#literalsInSourceOrder(types)) {
        if (t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)) continue;
        // `false | true` is boolean.
        if (booleans.length === 2 && t.flags & ts.TypeFlags.BooleanLiteral) {
          if (t === booleans[0]) out.push("boolean");
          continue;
        }
        out.push(this.print(t, indent, { inline }));
      }
      return out.join(" | ");
    };
    // null and undefined go last, and the rest may be an entity (a permission set, say).
    const members = types.filter((t) => !(t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined))).length;
    const rest = (members > 1 && this.#named(opts, () => texts(true))) || texts(!!opts.inline);
    const nullish = [
      ...(types.some((t) => t.flags & ts.TypeFlags.Null) ? ["null"] : []),
      ...(types.some((t) => t.flags & ts.TypeFlags.Undefined) && !opts.optional ? ["undefined"] : []),
    ];
    return [rest, ...nullish].filter(Boolean).join(" | ");
  }

  #object(type: ts.Type, indent: string, inline: boolean): string {
    const c = this.#checker;
    if (c.getSignaturesOfType(type, ts.SignatureKind.Call).length || c.getSignaturesOfType(type, ts.SignatureKind.Construct).length) {
      throw new Error(`cannot print a function type: ${c.typeToString(type)}`);
    }
    const props = inDeclarationOrder(c.getPropertiesOfType(type));
    const indexes = c.getIndexInfosOfType(type);
    if (props.length === 0 && indexes.length === 1 && indexes[0]!.keyType.flags & ts.TypeFlags.String && !indexes[0]!.isReadonly) {
      return `Record<string, ${this.print(indexes[0]!.type, indent, { inline })}>`;
    }
    const inner = inline ? "" : indent + "  ";
    const members: string[] = [];
    for (const p of props) {
      const optional = !!(p.flags & ts.SymbolFlags.Optional);
      const key = /^[A-Za-z_$][\w$]*$/.test(p.name) ? p.name : JSON.stringify(p.name);
      const doc = inline ? "" : docComment(ts.displayPartsToString(p.getDocumentationComment(c)).trim(), inner);
      members.push(`${doc}${inner}${key}${optional ? "?" : ""}: ${this.print(c.getTypeOfSymbol(p), inner, { inline, optional })};`);
    }
    for (const index of indexes) {
      const value = this.print(index.type, inner, { inline });
      members.push(`${inner}${index.isReadonly ? "readonly " : ""}[key: ${c.typeToString(index.keyType)}]: ${value};`);
    }
    if (members.length === 0) return "{}";
    return inline ? `{ ${members.join(" ")} }` : `{\n${members.join("\n")}\n${indent}}`;
  }
}

interface PrintOptions {
  top?: boolean;
  inline?: boolean;
  optional?: boolean;
}

const INTRINSIC =
  ts.TypeFlags.Any |
  ts.TypeFlags.Unknown |
  ts.TypeFlags.Never |
  ts.TypeFlags.String |
  ts.TypeFlags.Number |
  ts.TypeFlags.Boolean |
  ts.TypeFlags.BooleanLiteral |
  ts.TypeFlags.BigInt |
  ts.TypeFlags.Null |
  ts.TypeFlags.Undefined |
  ts.TypeFlags.Void |
  ts.TypeFlags.NonPrimitive |
  ts.TypeFlags.ESSymbol;

/**
 * Required properties first, then optional ones (zod's order), each in the order the sources
 * declare them (by file, then position); the checker's own order of a picked or omitted shape
 * depends on what it happened to meet first.
 */
function inDeclarationOrder(props: ts.Symbol[]): ts.Symbol[] {
  const where = (p: ts.Symbol) => {
    const d = p.declarations?.[0];
    return d ? ([d.getSourceFile().fileName, d.getStart()] as const) : (["\uffff", 0] as const);
  };
  const optional = (p: ts.Symbol) => (p.flags & ts.SymbolFlags.Optional ? 1 : 0);
  return props
    .map((p, i) => ({ p, i, w: where(p) }))
    .sort((a, b) => optional(a.p) - optional(b.p) || (a.w[0] < b.w[0] ? -1 : a.w[0] > b.w[0] ? 1 : a.w[1] - b.w[1] || a.i - b.i))
    .map((x) => x.p);
}

/** A global interface or class of the standard library or Node (Date, FormData): printed by its name. */
function isGlobalType(type: ts.Type): boolean {
  const objectFlags = (type as ts.ObjectType).objectFlags;
  const target = objectFlags & ts.ObjectFlags.Reference ? (type as ts.TypeReference).target : type;
  if (!((target as ts.ObjectType).objectFlags & (ts.ObjectFlags.Interface | ts.ObjectFlags.Class))) return false;
  const files = type.getSymbol()?.declarations?.map((d) => d.getSourceFile().fileName) ?? [];
  return files.length > 0 && files.every((f) => /\/node_modules\/(typescript\/lib|@types\/node|undici-types)\//.test(f));
}

/** A JSDoc block for `text` at `indent` (with the line break after it), or "" for none. */
function docComment(text: string | undefined, indent: string): string {
  if (!text) return "";
  const lines = text.split("\n").map((l) => l.trimEnd());
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} *${l ? " " + l : ""}`).join("\n")}\n${indent} */\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const changed = await writeGeneratedTypes();
  console.log(changed.length ? `wrote ${changed.join(", ")}` : "generated types are up to date");
}
