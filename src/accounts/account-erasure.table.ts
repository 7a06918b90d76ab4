/**
 * An account deleted from the store whose keys in Redis (sessions, sign-in counts) are not yet
 * deleted: written in the deletion's transaction, removed once Redis has forgotten the person too.
 * Only while Redis is unreachable does a row outlive the request (account-erasure.ts).
 */
export interface AccountErasureTable {
  user_id: number;
  /** ISO 8601, UTC. */
  erased_at: string;
}
