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
import { currentUser, requireUserPage } from '../web/authentication.js';
import { dateStyleOf } from '../web/locale.js';
import { syncOverview } from './sync-overview.js';
import { formFields } from '../web/form-fields.js';
import { formProblemsOf } from '../web/form-problems.js';
import type { RenderPage } from '../web/pages.js';
import { scopesFoundMissing } from '../notices/notice.repository.js';

interface Dependencies {
  db: Db;
  renderPage: RenderPage;
  clock: () => Date;
}

/** Notices that other pages hand over by redirecting to `/?notice=<key>`; only these keys are shown. */
const NOTICES: Record<string, string> = {
  connected: 'Connected. Your data will now be kept in the Athlete Data Service.',
  disconnected: 'Disconnected. This app no longer holds access to your Athlete Data Service account.',
  timezone_saved: 'Time zone saved.',
};

/** Why reconnecting is needed, for the dashboard; undefined while the connection works. */
function reconnectWords(connection: Connection, now: Date): string | undefined {
  if (effectiveStatus(connection, now) === 'connected') return undefined;
  return reconnectReasonWords(reconnectReason(connection, now));
}

/** "Nutrition", "Nutrition and Wellness", "Nutrition, Wellness and Activities"; undefined for none. */
function namesInWords(names: string[]): string | undefined {
  if (names.length === 0) return undefined;
  return names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** The signed-in person's home: connection status, what the grant allows, the sync overview, and the time zone. */
export function dashboardPages({ db, renderPage, clock }: Dependencies): Router {
  const router = Router();

  async function renderDashboard(req: Request, res: Response, extra: Record<string, unknown> = {}, status = 200) {
    const user = currentUser(res);
    const connection = await findConnection(db, user.id);
    const notice = typeof req.query.notice === 'string' ? NOTICES[req.query.notice] : undefined;
    const withdrawn = connection && withdrawnCapabilities(await scopesFoundMissing(db, user.id, connection.grantId), connection.scopes);
    renderPage(
      req,
      res,
      'dashboard',
      {
        title: 'Dashboard',
        connection: connection && {
          ...connection,
          status: effectiveStatus(connection, clock()),
          reconnectReason: reconnectWords(connection, clock()),
          reconnectBy: reconnectNeededSoon(connection, clock()) ? connection.refreshExpiresAt?.toISOString() : undefined,
          withdrawn: namesInWords((withdrawn ?? []).map((capability) => capability.name)),
        },
        capabilities: describeCapabilities(connection?.scopes ?? []),
        sync: await syncOverview(db, user, connection, clock(), dateStyleOf(req)),
        notice,
        zones: timeZoneNames(),
        timezone: { value: user.timezone },
        ...extra,
      },
      status,
    );
  }

  router.get('/', requireUserPage, async (req, res) => renderDashboard(req, res));

  router.post('/settings/timezone', requireUserPage, async (req, res) => {
    const body = formFields(req);
    const input = timezoneChangeSchema.safeParse(body);
    if (!input.success) {
      const typed = { timezone: typeof body.timezone === 'string' ? body.timezone : '' };
      const problem = formProblemsOf(input.error, TIME_ZONE_FORM_WORDS, typed).fields.timezone;
      return renderDashboard(req, res, { timezone: { value: typed.timezone, problem } }, 400);
    }
    await updateTimezone(db, currentUser(res).id, input.data.timezone);
    res.redirect(303, '/?notice=timezone_saved');
  });

  return router;
}
