/**
 * What the platform itself holds, read straight from the emulator's store: an organization's
 * members, invitations and database users, keyed by email. The demo prints the difference
 * between two views ("in the platform: + member linus@example.com ..."), which says what a run
 * did in words a newcomer can check, independently of what the provider reports.
 */
import type { Store } from "../emulator";

/** One organization's access as the platform holds it. */
export interface AccessView {
  /** Members by lower-cased email. */
  members: Record<string, { name: string; permissions: string[]; identifiers: string[] }>;
  /** Invitations by lower-cased email. */
  invitations: Record<string, { status: "pending" | "expired"; permissions: string[] }>;
  /** Databases the organization owns, by id; their users by email (or `user <id>` for a non-member). */
  databases: Record<string, { name: string; users: Record<string, string[]> }>;
}

const sorted = (items: readonly string[]) => [...items].sort();

/** Reads an organization's access from the emulator's store. */
export function accessView(store: Store, organizationId: number): AccessView {
  const emailOf = (userId: number) => {
    const u = store.users.find(userId);
    return u ? u.email.toLowerCase() : `user ${userId}`;
  };
  const members: AccessView["members"] = {};
  for (const m of store.members.of(organizationId)) {
    const u = store.users.get(m.userId);
    members[emailOf(m.userId)] = {
      name: `${u.firstName} ${u.lastName}`.trim(),
      permissions: sorted(m.permissions),
      identifiers: sorted(m.userIdentifiers.map((i) => i.abbreviation)),
    };
  }
  const invitations: AccessView["invitations"] = {};
  for (const inv of store.invitations.of(organizationId)) {
    invitations[inv.email.toLowerCase()] = {
      status: store.invitations.isExpired(inv) ? "expired" : "pending",
      permissions: sorted(inv.permissions),
    };
  }
  const databases: AccessView["databases"] = {};
  for (const db of store.databases.of(organizationId)) {
    const users: Record<string, string[]> = {};
    for (const du of store.databases.usersOf(db.id)) if (du.permissions.length > 0) users[emailOf(du.userId)] = sorted(du.permissions);
    databases[String(db.id)] = { name: db.name, users };
  }
  return { members, invitations, databases };
}

const list = (items: readonly string[]) => (items.length > 0 ? items.join(", ") : "(none)");
const same = (a: readonly string[], b: readonly string[]) => a.join("\n") === b.join("\n");

/**
 * The differences between two views, one line each: `+` added, `-` removed, `~` changed, e.g.
 * `~ member alan@northwind.example: permissions ORG_ADMIN -> (none)`. Empty when nothing changed.
 */
export function describeAccessChanges(before: AccessView, after: AccessView): string[] {
  const lines: string[] = [];
  const keys = (a: object, b: object) => [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();

  for (const email of keys(before.members, after.members)) {
    const b = before.members[email];
    const a = after.members[email];
    if (!b) lines.push(`+ member ${email} (${a.name}): permissions ${list(a.permissions)}; identifiers ${list(a.identifiers)}`);
    else if (!a) lines.push(`- member ${email} (${b.name})`);
    else {
      if (!same(b.permissions, a.permissions))
        lines.push(`~ member ${email}: permissions ${list(b.permissions)} -> ${list(a.permissions)}`);
      if (!same(b.identifiers, a.identifiers))
        lines.push(`~ member ${email}: identifiers ${list(b.identifiers)} -> ${list(a.identifiers)}`);
    }
  }
  for (const email of keys(before.invitations, after.invitations)) {
    const b = before.invitations[email];
    const a = after.invitations[email];
    if (!b) lines.push(`+ invitation ${email} (${a.status}): permissions ${list(a.permissions)}`);
    else if (!a) lines.push(`- invitation ${email}`);
    else if (b.status !== a.status || !same(b.permissions, a.permissions)) {
      lines.push(`~ invitation ${email}: ${b.status} ${list(b.permissions)} -> ${a.status} ${list(a.permissions)}`);
    }
  }
  for (const id of keys(before.databases, after.databases)) {
    const b = before.databases[id] ?? { name: after.databases[id].name, users: {} };
    const a = after.databases[id] ?? { name: b.name, users: {} };
    const where = `database ${id} (${a.name})`;
    for (const user of keys(b.users, a.users)) {
      if (!b.users[user]) lines.push(`+ ${where}: ${user} ${list(a.users[user])}`);
      else if (!a.users[user]) lines.push(`- ${where}: ${user} ${list(b.users[user])}`);
      else if (!same(b.users[user], a.users[user])) lines.push(`~ ${where}: ${user} ${list(b.users[user])} -> ${list(a.users[user])}`);
    }
  }
  return lines;
}
