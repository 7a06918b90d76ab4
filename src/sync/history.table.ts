/**
 * One row per person whose history waits to be sent (the history lane): an import, a resync, the
 * entries waiting when they connected. Gone once all of it is in the service.
 */
export interface HistoryTable {
  user_id: number;
  /** When this history began: progress counts from here. */
  started_at: string;
  /** How many entries it has had: what waits of it now, and what has been sent (or settled) since it began. */
  total: number;
  /**
   * The person's place in the rotation: when their last turn ended (at first: when the history
   * began), or when the backoff after a failed one ends. Turns go round in this order.
   */
  last_turn_at: string;
}
