import { DateTime } from 'luxon';
import { capabilityOfScope } from '../connections/capabilities.js';
import { SYNCED_KINDS } from '../kinds.js';
import { wordList } from '../text/word-list.js';
import { reconnectReasonWords } from '../connections/reconnect-words.js';
import type { Mail } from './mailer.js';
import type { ConnectionNotice } from './notice.table.js';

export interface Recipient {
  email: string;
  timezone: string;
}

const EVERYTHING = `your ${wordList(SYNCED_KINDS.map((kind) => kind.sync.inWords)) ?? 'data'} are no longer sent there`;
const NOTHING_LOST = 'Nothing you log here is lost: it waits, and is sent once you reconnect.';

/**
 * The mail about one notice, in plain words: what stopped syncing and since when (in the person's
 * zone), why, and the link that reconnects. It holds nothing secret: no token, no code, and no link
 * that acts without signing in but `unsubscribeUrl`, which can only turn these mails off. That link
 * is its `List-Unsubscribe` (RFC 2369) too, with `List-Unsubscribe-Post` (RFC 8058), so that a mail
 * client's Unsubscribe button turns them off in one click.
 */
export function noticeMail(notice: ConnectionNotice, to: Recipient, appBaseUrl: string, unsubscribeUrl: string): Mail {
  const when = (iso: string) => `${DateTime.fromISO(iso).setZone(to.timezone).toFormat('d LLL yyyy, HH:mm')} (${to.timezone})`;
  const { subject, lines } = wordsFor(notice, when);
  const text = [
    ...lines,
    '',
    `Reconnect here: ${appBaseUrl}/connect`,
    '',
    'You get this mail because your connection to the Athlete Data Service needs you.',
    `To stop these mails: ${unsubscribeUrl}`,
    `(or turn them off on your account page: ${appBaseUrl}/account)`,
    '',
  ].join('\n');
  return {
    to: to.email,
    subject,
    text,
    messageId: `<connection-notice-${notice.id}@${new URL(appBaseUrl).hostname}>`,
    // RFC 3834: no auto-reply to this one.
    headers: {
      'List-Unsubscribe': `<${unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      'Auto-Submitted': 'auto-generated',
    },
  };
}

function wordsFor(notice: ConnectionNotice, when: (iso: string) => string): { subject: string; lines: string[] } {
  switch (notice.kind) {
    case 'needs_reconnect':
      return {
        subject: 'Your data has stopped syncing to the Athlete Data Service',
        lines: [
          `Since ${when(notice.created_at)}, athlete-sync cannot keep your data in the Athlete Data Service:`,
          `${EVERYTHING}.`,
          '',
          reconnectReasonWords(notice.detail ?? undefined),
          NOTHING_LOST,
        ],
      };
    case 'scope_missing': {
      const capability = notice.detail === null ? undefined : capabilityOfScope(notice.detail);
      const name = capability?.name ?? notice.detail ?? 'Part of your data';
      return {
        subject: `${name} has stopped syncing to the Athlete Data Service`,
        lines: [
          `Since ${when(notice.created_at)}, the Athlete Data Service refuses this app's ${name.toLowerCase()} (${notice.detail}):`,
          'the permission was withdrawn there. Reconnect and grant it again to resume.',
          NOTHING_LOST,
        ],
      };
    }
    case 'expiring':
      return {
        subject: 'Reconnect soon to keep syncing with the Athlete Data Service',
        lines: [
          `The Athlete Data Service's permission for this app ends at ${when(notice.detail ?? notice.created_at)}.`,
          `After that, ${EVERYTHING} until you reconnect. Reconnecting now starts a new permission.`,
        ],
      };
  }
}
