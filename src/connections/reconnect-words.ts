import type { StatusReason } from './connection.table.js';

/** Each reason of connection.table.ts in the person's words: the dashboard and the mail (src/notices/) say the same. */
export const RECONNECT_REASONS: Record<StatusReason, string> = {
  grant_revoked: "The Athlete Data Service no longer accepts this app's access: it was withdrawn or has ended.",
  refresh_token_expired: "The Athlete Data Service's permission for this app has run out.",
  token_key_removed: 'This app can no longer read your stored authorization (its encryption key was removed).',
  tokens_damaged: 'This app can no longer read your stored authorization (it was damaged).',
  refresh_interrupted:
    'A refresh of your authorization was interrupted (the app was stopped, or lost the answer, at the wrong moment), and the Athlete Data Service no longer accepts it.',
};

export const REASON_NOT_RECORDED = "The Athlete Data Service no longer accepts this app's access.";

/**
 * The words for a reason; for none recorded (a connection marked before reasons were kept) or one
 * this version does not know (written by a newer one), the general words.
 */
export function reconnectReasonWords(reason: string | undefined): string {
  return reason !== undefined && Object.hasOwn(RECONNECT_REASONS, reason) ? RECONNECT_REASONS[reason as StatusReason] : REASON_NOT_RECORDED;
}
