/**
 * Messages said before their resource's URN is known, kept until a later request of the same
 * resource names it. On the dynamic face the plugin process's first request reaches the provider
 * with values that carry no URN (pluginHost.ts); when that request is a refresh's Read, the Diff
 * the engine runs right after it for the same resource names the URN, and the Read's messages go
 * to the engine then, attached to it (messages.ts). Should no such request come within `waitMs`
 * (an engine older than Pulumi 3.123 does not diff after a read), `expire` gets them, in order, so
 * that nothing is lost.
 */

/** Held messages by resource (`<kind> <id>`), each resource's in the order said. */
export class HeldMessages<T> {
  readonly #held = new Map<string, { items: T[]; timer: ReturnType<typeof setTimeout> }>();
  readonly #waitMs: number;

  constructor(waitMs = 3_000) {
    this.#waitMs = waitMs;
  }

  /**
   * Holds `items` for the resource `key`, after any held already; if none is taken within the
   * wait, `expire` gets all of them (the timer keeps the process alive until then).
   */
  hold(key: string, items: T[], expire: (items: T[]) => void): void {
    if (items.length === 0) return;
    const earlier = this.#held.get(key);
    if (earlier) clearTimeout(earlier.timer);
    const all = [...(earlier?.items ?? []), ...items];
    const timer = setTimeout(() => {
      this.#held.delete(key);
      expire(all);
    }, this.#waitMs);
    this.#held.set(key, { items: all, timer });
  }

  /** Takes the messages held for the resource `key`, in order (none: an empty list). */
  take(key: string): T[] {
    const held = this.#held.get(key);
    if (!held) return [];
    clearTimeout(held.timer);
    this.#held.delete(key);
    return held.items;
  }
}
