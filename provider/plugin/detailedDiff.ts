/**
 * The detailed diff the plugin face returns with every change, so that `pulumi preview --diff`
 * prints what changed and nothing else: one path per changed input, and inside a map (a roster's
 * `members` or `users`) one path per changed entry, so one changed person is one line, however
 * many people the roster holds. The dynamic face cannot return one (the engine then prints whole
 * inputs against whole outputs).
 */
import deepEqual from "fast-deep-equal";

/** pulumirpc.PropertyDiff.Kind. */
export const DIFF_KIND = { add: 0, addReplace: 1, delete: 2, deleteReplace: 3, update: 4, updateReplace: 5 } as const;

/** One changed path and how it changed. */
export interface PathDiff {
  path: string;
  kind: (typeof DIFF_KIND)[keyof typeof DIFF_KIND];
}

const isMap = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** A property path element as the engine writes one: `members["ken@x.example"]`. */
function entryPath(property: string, key: string): string {
  return `${property}[${JSON.stringify(key)}]`;
}

/**
 * The changed paths between the inputs last applied (`olds`, as refresh left them) and the new
 * inputs: a top-level input is one path, except a map whose entries are compared one by one.
 * Inputs in `ignore` are left out (they are not changes: the resource said so); those in
 * `replaces` are marked as replacing.
 */
export function detailedDiff(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  { ignore = [], replaces = [] }: { ignore?: readonly string[]; replaces?: readonly string[] } = {},
): PathDiff[] {
  const out: PathDiff[] = [];
  const keys = [...new Set([...Object.keys(olds), ...Object.keys(news)])].filter((k) => !ignore.includes(k)).sort();
  for (const key of keys) {
    const replace = replaces.includes(key);
    const [before, after] = [olds[key], news[key]];
    if (deepEqual(before, after)) continue;
    if (isMap(before) && isMap(after)) {
      for (const entry of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
        const [b, a] = [before[entry], after[entry]];
        if (deepEqual(b, a)) continue;
        out.push({ path: entryPath(key, entry), kind: kindOf(b, a, replace) });
      }
      continue;
    }
    out.push({ path: key, kind: kindOf(before, after, replace) });
  }
  return out;
}

function kindOf(before: unknown, after: unknown, replace: boolean): PathDiff["kind"] {
  if (before === undefined) return replace ? DIFF_KIND.addReplace : DIFF_KIND.add;
  if (after === undefined) return replace ? DIFF_KIND.deleteReplace : DIFF_KIND.delete;
  return replace ? DIFF_KIND.updateReplace : DIFF_KIND.update;
}
