/**
 * How a person is named wherever the project names one to a reader: the run's messages (refresh,
 * the drift gate, who changed what), the review packet, the exporter. One wording: "Grace Hopper
 * <grace@northwind.example> (user 1002)", with whatever of the name, email and user id is known.
 */

/** What may be known of a person: the service's name fields, an email, a user id. */
export interface PersonFacts {
  /** The full name, where a reader already joined it (else firstName and lastName). */
  name?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
  userId?: number | null;
}

/** "Grace Hopper", or "" when the service gives no name. */
export function fullName(p: Pick<PersonFacts, "name" | "firstName" | "lastName">): string {
  if (p.name?.trim()) return p.name.trim();
  return [p.firstName, p.lastName]
    .map((s) => s?.trim())
    .filter((s) => !!s)
    .join(" ");
}

/** "Grace Hopper <grace@northwind.example>": the name and email known, either alone, or "" when neither is. */
export function personLabel(p: PersonFacts): string {
  const name = fullName(p);
  if (!p.email) return name;
  return name ? `${name} <${p.email}>` : p.email;
}

/** "Grace Hopper <grace@northwind.example> (user 1002)"; "user 1002" when only the id is known. */
export function personText(p: PersonFacts): string {
  const label = personLabel(p);
  if (p.userId == null) return label || "an unnamed person";
  return label ? `${label} (user ${p.userId})` : `user ${p.userId}`;
}
