/**
 * The inputs and state of the member-field resources (OrgMemberPermissions, UserIdentifiers):
 * their own module, free of zod, because the resource classes' outputs are typed with them and
 * published declarations must not import zod (memberFieldResource.ts holds the schema).
 */

/** The member a resource names: the organization, and the user id or the email. */
export interface MemberRef {
  organizationId: number;
  userId?: number;
  email?: string;
  allowAdminRemoval?: boolean;
  /** "YYYY-MM-DD" (UTC), where the field is a grant (OrgMemberPermissions): the field is emptied from that day on. */
  expiresOn?: string;
}

/** The inputs of a member-field resource: the member and the value. */
export type MemberFieldInputs<F extends string, V> = MemberRef & { [K in F]: V };

/** What a member-field resource stores. */
export type MemberFieldState<F extends string, V> = {
  organizationId: number;
  /** The member's user id (resolved from the email when named by email). */
  userId: number;
  /** The member's email, lower-cased. */
  email: string;
  allowAdminRemoval?: boolean;
  /** Which identity the program used, so refresh gives back the same inputs. */
  namedBy: "userId" | "email";
  /** The declared end date (absent in older states, and without one). */
  expiresOn?: string;
  /** The end date, when it falls within reviewadmin:expiringSoonDays (default 14) of the last up or refresh. */
  expiringSoon?: string;
  /** Set once up has emptied the field because the end date passed: that date. */
  expiredOn?: string;
} & { [K in F]: V };
