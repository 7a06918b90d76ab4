import { Router, type Request, type Response } from 'express';
import { TIME_ZONE_FORM_WORDS } from '../accounts/account-form-words.js';
import { timezoneChangeSchema } from '../accounts/account.schemas.js';
import { timeZoneNames } from '../accounts/time-zone.js';
import { updateTimezone } from '../accounts/user.repository.js';
import { describeCapabilities, withdrawnCapabilities } from '../connections/capabilities.js';
import { effectiveStatus, reconnectNeededSoon, reconnectReason } from '../connections/connection-health.js';
import { findConnection, type Connection } from '../connections/connection.repository.js';
import { reconnectReasonWords } from '../connections/reconnect-words.js';
import type { Db } from '../db/database.js';
import { wordList } from '../text/word-list.js';
import { currentUser, requireUserPage } from '../web/authentication.js';
import { dateStyleOf } from '../web/locale.js';
import { receivedByDay } from './received-by-day.js';
import { syncOverview } from './sync-overview.js';
import { KINDS } from '../kinds.js';
import type { KindDashboardRequest } from '../kinds/kind.js';
import { flash } from '../web/flash.js';
import { refuseForm, takeDraft } from '../web/form-draft.js';
import { formFields } from '../web/form-fields.js';
import { formProblemsOf } from '../web/form-problems.js';
import type { RenderPage } from '../web/pages.js';
import { scopesFoundMissing } from '../notices/notice.repository.js';

interface Dependencies {
  db: Db;
  renderPage: RenderPage;
  /** Whether mail is on (SMTP_URL): only then does the dashboard ask to confirm the address. */
  mailOn: boolean;
  clock: () => Date;
}

const TIME_ZONE_FORM = '/settings/timezone';

/** Why reconnecting is needed, for the dashboard; undefined while the connection works. */
function reconnectWords(connection: Connection, now: Date): string | undefined {
  if (effectiveStatus(connection, now) === 'connected') return undefined;
  return reconnectReasonWords(reconnectReason(connection, now));
}

/** What each registered kind that has one shows on the dashboard (kinds/kind.ts), in the order of src/kinds.ts. */
async function kindSummaries(request: KindDashboardRequest) {
  return Promise.all(
    KINDS.flatMap(({ name, dashboard }) =>
      dashboard ? [dashboard.load(request).then((data) => ({ kind: name, view: `./${dashboard.view}`, data }))] : [],
    ),
  );
}

/** The signed-in person's home: connection status, what the grant allows, the sync overview, and the time zone. */
export function dashboardPages({ db, renderPage, mailOn, clock }: Dependencies): Router {
  const router = Router();

  async function renderDashboard(req: Request, res: Response) {
    const user = currentUser(res);
    const refused = takeDraft(req, (form) => form === TIME_ZONE_FORM);
    const connection = await findConnection(db, user.id);
    // One instant and one date style for every piece of the page.
    const now = clock();
    const style = dateStyleOf(req);
    const withdrawn = connection && withdrawnCapabilities(await scopesFoundMissing(db, user.id, connection.grantId), connection.scopes);
    renderPage(req, res, 'dashboard', {
      title: 'Dashboard',
      connection: connection && {
        ...connection,
        status: effectiveStatus(connection, now),
        reconnectReason: reconnectWords(connection, now),
        reconnectBy: reconnectNeededSoon(connection, now) ? connection.refreshExpiresAt?.toISOString() : undefined,
        withdrawn: wordList((withdrawn ?? []).map((capability) => capability.name)),
      },
      capabilities: describeCapabilities(connection?.scopes ?? []),
      sync: await syncOverview(db, user, connection, now, style),
      received: await receivedByDay(db, user, now, style),
      summaries: await kindSummaries({ db, user, now, style }),
      zones: timeZoneNames(),
      emailUnconfirmed: mailOn && user.email_verified_at === null,
      timezone: refused
        ? { value: refused.values.timezone ?? '', problem: refused.problems.fields.timezone ?? refused.problems.all.join(' ') }
        : { value: user.timezone },
    });
  }

  router.get('/', requireUserPage, async (req, res) => renderDashboard(req, res));

  router.post('/settings/timezone', requireUserPage, async (req, res) => {
    const body = formFields(req);
    const input = timezoneChangeSchema.safeParse(body);
    if (!input.success) {
      const typed = { timezone: typeof body.timezone === 'string' ? body.timezone : '' };
      const problems = formProblemsOf(input.error, TIME_ZONE_FORM_WORDS, typed);
      return refuseForm(req, res, '/', { form: TIME_ZONE_FORM, values: typed, problems });
    }
    await updateTimezone(db, currentUser(res).id, input.data.timezone);
    flash(req, 'Time zone saved.');
    res.redirect(303, '/');
  });

  return router;
}
