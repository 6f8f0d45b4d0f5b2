/**
 * Packed roster properties: on the dynamic face, a roster's large maps and lists cross the Pulumi
 * engine as one deflated text each instead of as property maps; small ones cross as the values
 * themselves, so that `pulumi stack export` (and any tool reading state) shows who a small
 * roster declares without this package.
 *
 * Why: the engine copies, converts and serializes every property value in three processes (the
 * program, the CLI, the dynamic-provider plugin) at each step, and a roster of 28,007 people is
 * about 400,000 values. Measured under the real CLI (bench/results/enterprise.md, issue 35), the
 * same map as one string makes a no-change `up` of that roster an order of magnitude faster and
 * its plugin several times smaller. The cost is per value, summed over every roster: the
 * enterprise program's 201 database rosters of 40 people each, as values (67,000 of them), made
 * its no-change `up` 17.9 s against the engine's floor of 5.1 s in the same run, where texts had
 * been 1.6 s over the floor (issue 54).
 * So the one rule ({@link packAs}) is, by the length of the JSON: at most {@link VALUE_UP_TO}
 * characters (a setting such as knownExceptions, a roster of one or two people), the value itself,
 * readable in `pulumi stack export`; up to {@link DEFLATE_ABOVE}, its JSON text (one value to the
 * engine, still readable there); longer (a roster of some 300 people and more), that text
 * deflated, which keeps a 28,007-person roster's checkpoint and messages small. Nothing is lost
 * for the reader: these are the properties the preview hides already (the roster's diff names each
 * person who changes instead), and `pulumi-reviewadmin state show` prints every form from an
 * export.
 *
 * Both sides use the rule: the program's inputs (resourceClass.ts) and the plugin's inputs and
 * outputs (provider/runtime.ts, {@link packProps}). Two machines' zlib may deflate the same
 * content to other bytes; nothing compares these texts as such: the provider reads inputs back
 * and compares the values (lifecycle.ts checkedBefore), and an output read unchanged keeps its
 * stored text ({@link packProps}).
 *
 * The rule is written here, not in the provider, because the policy pack, `review --stack` and
 * `state show` read the same properties from the engine and from `pulumi stack export`, and may
 * import only the contract. Old states hold the maps themselves, plain JSON text (at any size)
 * or deflated text: {@link unpackProps} reads all three.
 */
import deepEqual from "fast-deep-equal";
import { deflateRawSync, inflateRawSync } from "node:zlib";

/** What both rosters keep beside their own map: the undeclared, the gate's record, end dates. */
const ROSTER_LISTS = ["unmanaged", "knownExceptions", "declaredElsewhere", "expiresOn", "expiringSoon", "expired", "foundWhenAdopted"];

/**
 * Per resource kind, the properties that cross the engine packed: the roster's hidden properties
 * (the provider may not be imported here; test/contract/packed.test.ts holds the two lists equal).
 */
export const PACKED_PROPERTIES: Readonly<Record<string, readonly string[]>> = {
  OrganizationMembers: ["members", "managed", "protectedEmails", ...ROSTER_LISTS],
  DatabaseUsers: ["users", "managedUserIds", "protectedUserIds", ...ROSTER_LISTS],
};

/**
 * JSON text of a value with every object's keys in code-unit order, so that the same content is
 * the same text (the engine compares packed properties as strings: a refresh that reads the
 * same people in another order must not count as a change).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

/** The prefix of a deflated packed text: raw deflate, then base64 (no JSON text starts so). */
const DEFLATED = "deflate:";

/**
 * Values whose JSON is at most this long cross as values: settings and a roster of one or two
 * people. Small because the engine's cost is per value and a stack may hold hundreds of rosters:
 * 200 keeps a 40-person roster's every map and list (its `managedUserIds` is 241 characters) one
 * text, as the enterprise benchmark measured (bench/results/enterprise.md).
 */
export const VALUE_UP_TO = 200;

/** Texts longer than this are deflated (a roster of about 300 people); shorter ones stay readable JSON text. */
export const DEFLATE_ABOVE = 64 * 1024;

/**
 * True for a packed text: JSON text of an object or a list (written by earlier versions), or that
 * text deflated (a property of these never holds another string).
 */
export function isPacked(value: unknown): value is string {
  return typeof value === "string" && (value.startsWith("{") || value.startsWith("[") || value.startsWith(DEFLATED));
}

/** The value a packed text holds, plain or deflated. */
export function unpackValue(text: string): unknown {
  const json = text.startsWith(DEFLATED) ? inflateRawSync(Buffer.from(text.slice(DEFLATED.length), "base64")).toString("utf8") : text;
  return JSON.parse(json) as unknown;
}

/**
 * The one packing rule: `value` as it crosses the engine, given its JSON text `json` (any key
 * order: the length is the same). At most {@link VALUE_UP_TO} long, the value itself; up to
 * {@link DEFLATE_ABOVE}, that text; longer, that text deflated.
 */
export function packAs(value: object, json: string): object | string {
  if (json.length <= VALUE_UP_TO) return value;
  return json.length > DEFLATE_ABOVE ? DEFLATED + deflateRawSync(json, { level: 1 }).toString("base64") : json;
}

/** A value as packed: itself when small, else its canonical JSON deflated (the same content, the same text before deflating). */
export function packValue(value: object): object | string {
  return packAs(value, canonicalJson(value));
}

/**
 * `props` (inputs or outputs) with the packed properties of `kind` packed ({@link packValue}:
 * small ones as values, longer as JSON text, long ones deflated); other values (unknowns, absent, strings) as they
 * are. `kept`: props as the engine sent them (`text`) and as {@link unpackProps} read them
 * (`value`, never changed since); a value equal to one read from a text takes that text back,
 * whatever its form: a check of the program's inputs keeps the program's text, and a refresh
 * that found nothing changed rewrites nothing, so that the engine sees no change in a state an
 * older version wrote either (its JSON text becomes a value at the roster's next write).
 */
export function packProps<T>(kind: string, props: T, kept?: { text: unknown; value: unknown }): T {
  const text = (kept?.text ?? {}) as Record<string, unknown>;
  const value = (kept?.value ?? {}) as Record<string, unknown>;
  return packEach(kind, props, (f, v) => (isPacked(text[f]) && deepEqual(v, value[f]) ? text[f] : packValue(v)));
}

/** `props` with each packed property of `kind` that holds an object or a list given to `pack`. */
function packEach<T>(kind: string, props: T, pack: (field: string, value: object) => unknown): T {
  const fields = PACKED_PROPERTIES[kind];
  if (!fields || props === null || typeof props !== "object") return props;
  const out: Record<string, unknown> = { ...(props as Record<string, unknown>) };
  for (const f of fields) {
    const v = out[f];
    if (v !== null && typeof v === "object") out[f] = pack(f, v);
  }
  return out as T;
}

/** Texts read already, by text: what {@link unpackProps} asks before it reads one, and tells after. */
export type ReadTexts = Pick<Map<string, unknown>, "get" | "set">;

/**
 * Long texts one step made or read, with their values, for a later step to take instead of reading
 * them again (the plugin's shim, provider/runtime.ts, says which). Each is taken once, by one step,
 * so it is shared as {@link unpackProps} shares values (only compared, never changed); at most
 * `most` are kept, the oldest let go first: they are large.
 */
export class HandedOn {
  readonly #values = new Map<string, object>();
  constructor(readonly most: number) {}

  /** Keeps these texts' values for a later step. */
  add(pairs: readonly [string, object][]): void {
    for (const [text, value] of pairs) {
      this.#values.delete(text);
      this.#values.set(text, value);
    }
    for (const text of this.#values.keys()) if (this.#values.size > this.most) this.#values.delete(text);
  }

  /** The texts one step has read: its own reads, else a value handed on (taken, then the step's own). */
  reader(): ReadTexts {
    const own = new Map<string, unknown>();
    return {
      get: (text: string) => {
        if (own.has(text)) return own.get(text);
        const value = this.#values.get(text);
        this.#values.delete(text);
        if (value !== undefined) own.set(text, value);
        return value;
      },
      set: (text: string, value: unknown) => own.set(text, value),
    } as ReadTexts;
  }
}

/**
 * The deflated texts of `packed` (props as {@link packProps} made them from `values`), each with
 * its value: the one `kept.value` read from the same text when packProps took that text back (the
 * very value the text reads as), else the one packed (equal in content).
 */
export function deflatedPairs(
  kind: string,
  packed: unknown,
  values: unknown,
  kept?: { text: unknown; value: unknown },
): [string, object][] {
  const texts = (packed ?? {}) as Record<string, unknown>;
  const given = (kept?.text ?? {}) as Record<string, unknown>;
  const read = (kept?.value ?? {}) as Record<string, unknown>;
  const held = (values ?? {}) as Record<string, unknown>;
  return (PACKED_PROPERTIES[kind] ?? []).flatMap((f) => {
    const t = texts[f];
    const v = t === given[f] ? read[f] : held[f];
    return typeof t === "string" && t.startsWith(DEFLATED) && v !== null && typeof v === "object" ? [[t, v] as [string, object]] : [];
  });
}

/**
 * `props` with the packed properties of `kind` read back; props of old states (the values
 * themselves) as they are. `read`: texts read already, shared by the calls given the same map
 * (the same text gives the very same object: for values only compared, never changed).
 */
export function unpackProps<T>(kind: string, props: T, read?: ReadTexts): T {
  const fields = PACKED_PROPERTIES[kind];
  if (!fields || props === null || typeof props !== "object") return props;
  let out: Record<string, unknown> | undefined;
  for (const f of fields) {
    const v = (props as Record<string, unknown>)[f];
    if (!isPacked(v)) continue;
    out ??= { ...(props as Record<string, unknown>) };
    let value = read?.get(v);
    if (value === undefined) {
      value = unpackValue(v);
      read?.set(v, value);
    }
    out[f] = value;
  }
  return (out ?? props) as T;
}
