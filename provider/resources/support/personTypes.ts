/**
 * What every per-person resource's inputs and state hold (personGrant.ts): their own module, free
 * of zod, because the resource classes' outputs are typed with the states that extend them and
 * published declarations must not import zod (.ci/check-package).
 */

/** The inputs every per-person resource holds. */
export interface PersonInputs {
  allowAdminRemoval?: boolean;
  /** "YYYY-MM-DD" (UTC): the grant ends at the start of this day. */
  expiresOn?: string;
}

/** What every per-person resource's state holds. */
export interface PersonState extends PersonInputs {
  /** Absent where the resource never adopts anyone (a field kind). */
  adopted?: boolean;
  /** The end date, when it falls within reviewadmin:expiringSoonDays (default 14) of the last up or refresh. */
  expiringSoon?: string;
  /** Set once up has ended the grant because its end date passed (removed the person or the permissions, withdrew the invitation): that date. */
  expiredOn?: string;
}
