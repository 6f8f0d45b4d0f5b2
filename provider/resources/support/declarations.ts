/**
 * The program side of handover (handover.ts): what each resource of the program declares, so that
 * an authoritative roster knows, before it removes anyone, whom the rest of the program declares.
 *
 * The engine checks one registration at a time and may run a roster's update before it has
 * checked the resources registered after it, so claims made at check come too late for a roster.
 * The program knows sooner: every resource records its claims here when it is constructed, and a
 * roster's `declaredElsewhere` input (a promise the SDK resolves before registering it) waits
 * until the program has stopped constructing resources for a turn of the event loop, then lists
 * the claims of every other resource under its prefix. That is deterministic: it covers every
 * resource constructed before the roster or in the same synchronous stretch of the program, whose
 * identity (organization and email or user id, database and user id) is a plain value or an
 * output of values already known. A resource whose identity waits on another resource's outputs
 * is left to the claims made at check.
 */
import { Output, output } from "@pulumi/pulumi/output";
import { getStackResource } from "@pulumi/pulumi/runtime/stack";
import type { ResourceShape } from "./implementation";
import { compareText } from "../../util";

interface Declaration {
  /** `OrgMember "alan"`: the kind and the Pulumi name, as the roster's log names it. */
  holder: string;
  /**
   * Its claim keys, made when a roster first asks (an additive program never does); set once the
   * resource's args are known (never, for args unknown in a preview).
   */
  keys?: () => readonly string[];
}

// One list per run: an inline program (Automation API) runs many times in one process. Keyed by
// the run's stack resource; Symbol.for, so two copies of this package share it.
const SLOT = Symbol.for("pulumi-reviewadmin.declarations");
const NO_STACK = {};
function thisRun(): Declaration[] {
  // eslint-disable-next-line no-restricted-syntax -- per program run: keyed (weakly) by the run's stack resource, shared by two copies of the package.
  const g = globalThis as unknown as Record<symbol, WeakMap<object, Declaration[]>>;
  const runs = (g[SLOT] ??= new WeakMap());
  const stack = getStackResource() ?? NO_STACK;
  let list = runs.get(stack);
  if (!list) runs.set(stack, (list = []));
  return list;
}

/**
 * Records what the resource `name` of kind `shape` declares (once its args are known); returns its
 * entry. `plain`: the args hold no output or promise (holdsPending, which the caller has run).
 */
export function declare(shape: ResourceShape, name: string, args: object, plain: boolean): Declaration | undefined {
  const declares = shape.declares;
  if (!declares) return undefined;
  const entry: Declaration = { holder: `${shape.kind} "${name}"` };
  const list = thisRun();
  list.push(entry);
  const keysOf = (resolved: object) => {
    let keys: readonly string[] | undefined;
    return () => (keys ??= declares(resolved as Record<string, unknown>) ?? []);
  };
  // Plain args (an exported roster of 28,007 people) need no output: resolving one walks every value.
  if (plain) entry.keys = keysOf(args);
  else output(args as Record<string, unknown>).apply((resolved) => void (entry.keys = keysOf(resolved as object)));
  return entry;
}

/** True when a value is itself an output or a promise (what it holds aside). */
export function isPending(v: unknown): boolean {
  return v !== null && typeof v === "object" && (Output.isInstance(v) || typeof (v as { then?: unknown }).then === "function");
}

/** True when a value holds an output or a promise anywhere (so it is not plain data yet). */
export function holdsPending(v: unknown): boolean {
  if (v === null || typeof v !== "object") return false;
  return isPending(v) || (Array.isArray(v) ? v : Object.values(v)).some(holdsPending);
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The value of an input once resolved, or undefined when it is not known (a preview); `plain` as for declare. */
async function known(value: object, plain: boolean): Promise<Record<string, unknown> | undefined> {
  if (plain) return value as Record<string, unknown>;
  // Output.promise() is the SDK's own way to await an output; it gives undefined for unknowns,
  // where apply() would never call back and the roster would never register.
  const out = output(value) as unknown as { promise(): Promise<Record<string, unknown> | undefined> };
  return out.promise();
}

/**
 * For an authoritative roster (`shape.handsOver` gives its prefix, e.g. `member:102:`), what the
 * rest of the program declares under that prefix (claim key -> holder), resolved once a turn of
 * the event loop passes with no new resource; undefined for a roster that removes nobody
 * (additive), so its state carries nothing for it. `self` is the roster's own entry.
 */
export async function declaredElsewhere(
  self: Declaration | undefined,
  shape: ResourceShape,
  args: object,
  plain: boolean,
): Promise<Record<string, string> | undefined> {
  const resolved = await known(args, plain);
  const prefix = resolved && shape.handsOver?.(resolved);
  if (!prefix) return undefined;
  const list = thisRun();
  let seen: number;
  do {
    seen = list.length;
    await turn();
  } while (list.length !== seen);
  const out: Record<string, string> = {};
  for (const { key, entry } of indexOf(list).get(prefix) ?? []) if (entry !== self) out[key] ??= entry.holder;
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => compareText(a, b)));
}

/** The scope part of a claim key (`member:102:` of `member:102:ada@x.example`), the prefix a roster asks for. */
const scopeOf = (key: string) => key.slice(0, key.indexOf(":", key.indexOf(":") + 1) + 1);

/** A run's declarations by scope, in declaration order, and the state of the list it was built from. */
// eslint-disable-next-line no-restricted-syntax -- per program run: keyed (weakly) by the run's list of declarations.
const indexes = new WeakMap<
  Declaration[],
  { length: number; known: number; byScope: Map<string, { key: string; entry: Declaration }[]> }
>();

/**
 * The run's claim keys grouped by scope, built once for all its rosters (201 rosters each scanning
 * 36,000 keys was a second of a 28,007-person program) and again only when a declaration was added
 * or its keys became known.
 */
function indexOf(list: Declaration[]): Map<string, { key: string; entry: Declaration }[]> {
  const known = list.reduce((n, d) => n + (d.keys ? 1 : 0), 0);
  const cached = indexes.get(list);
  if (cached && cached.length === list.length && cached.known === known) return cached.byScope;
  const byScope = new Map<string, { key: string; entry: Declaration }[]>();
  for (const entry of list)
    for (const key of entry.keys?.() ?? []) {
      const scope = scopeOf(key);
      let at = byScope.get(scope);
      if (!at) byScope.set(scope, (at = []));
      at.push({ key, entry });
    }
  indexes.set(list, { length: list.length, known, byScope });
  return byScope;
}
