import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { SyncFacts } from '../sync/sync-statuses.js';
import type { Db } from '../db/database.js';
import { syncDescriberFor, type DescribeSync } from '../sync/sync-describer.js';
import type { SyncWords } from '../sync/sync-words.js';
import { currentUser, requireUserPage } from '../web/authentication.js';
import { signalOnClientLeaving } from '../web/client-left.js';
import { renderConfirmation } from '../web/confirm-page.js';
import type { FormProtection } from '../web/csrf.js';
import { redirectIfDeleted, rememberDeleted } from '../web/deleted-items.js';
import { flash } from '../web/flash.js';
import { formFields } from '../web/form-fields.js';
import { formProblemsOf, type FormWords } from '../web/form-problems.js';
import type { RenderPage } from '../web/pages.js';
import type { Activities, ActivityView } from './activities.js';
import { activityIdSchema, uploadFormSchema } from './activity.schemas.js';
import { UploadRefusedError } from './receive-upload.js';
import { withUploadedFile } from './upload-folder.js';
import type { UploadReception } from './upload-slots.js';

interface Dependencies {
  db: Db;
  activities: Activities;
  renderPage: RenderPage;
  clock: () => Date;
}

interface Problem {
  message: string;
  /** The form field it is about: the file, unless the name was refused. */
  field: 'file' | 'name';
  status: UploadRefusedError['status'];
  /** Given when the page is answered before the CSRF check ran. */
  csrfToken?: string;
}

const UPLOAD_WORDS: FormWords = { fields: { name: { label: 'Name', input: 'name' } } };

/** The name typed into the upload form, to show it again; a refusal while receiving may come before it was read. */
function typedName(req: Request): string {
  const name = formFields(req).name;
  return typeof name === 'string' ? name : '';
}

/** Its sync status, with the file's hash among the details and, after a refusal, what the person can do. */
function activityWords(activity: ActivityView, describe: DescribeSync): SyncWords & { advice?: string } {
  const words = describe(activity.sync);
  return { ...words, details: [...words.details, `File SHA-256: ${activity.sha256}`], advice: refusalAdvice(activity.sync) };
}

/** A file too large for the service is refused whatever its name; any other refusal may pass when the file is sent again. */
function refusalAdvice(sync: SyncFacts): string | undefined {
  if (sync.status !== 'failed') return undefined;
  if (sync.error?.startsWith('HTTP 413') === true) return 'The service takes no file this large, so it cannot be sent.';
  return 'Upload it again under another name to try again.';
}

async function renderActivities({ db, activities, renderPage, clock }: Dependencies, req: Request, res: Response, problem?: Problem) {
  const user = currentUser(res);
  const describe = await syncDescriberFor(db, user, clock());
  const data = {
    title: 'Activities',
    activities: (await activities.list(user)).map((activity) => ({ ...activity, syncWords: activityWords(activity, describe) })),
    problem: problem && `Not uploaded: ${problem.message}`,
    upload: { name: problem ? typedName(req) : '', problems: problem ? { [problem.field]: problem.message } : {} },
    ...(problem?.csrfToken !== undefined && { csrfToken: problem.csrfToken }),
  };
  renderPage(req, res, 'activities/activities', data, problem?.status ?? 200);
}

/**
 * POST /activities, the page's upload form. app.ts mounts it before the forms' CSRF check, which
 * reads `_csrf` from a body only receiveUpload can parse; the check runs right after it here. An
 * upload refused before that (no free slot, too large, too slow) is shown on the page without the
 * check: it changed nothing, and its `_csrf` may never have been read.
 */
export function activityUploadPage(deps: Dependencies & { uploads: UploadReception; forms: FormProtection }): Router {
  const router = Router();
  /** A step whose refusal is shown on the page, with a form token for the next try. */
  const refusedOnThePage =
    (step: RequestHandler): RequestHandler =>
    (req, res, next) => {
      step(req, res, (error?: unknown) => {
        if (!(error instanceof UploadRefusedError)) return next(error);
        const problem = {
          message: error.forPeople ?? error.message,
          field: 'file' as const,
          status: error.status,
          csrfToken: deps.forms.tokenFor(req, res),
        };
        renderActivities(deps, req, res, problem).catch(next);
      });
    };

  router.post(
    '/activities',
    requireUserPage,
    refusedOnThePage(deps.uploads.admit),
    refusedOnThePage(deps.uploads.receive),
    ...deps.forms.check,
    (req, res) =>
      withUploadedFile(req, async (upload) => {
        const fields = uploadFormSchema.safeParse(req.body);
        if (!fields.success) {
          const message = formProblemsOf(fields.error, UPLOAD_WORDS, { name: typedName(req) }).all.join(' ');
          return renderActivities(deps, req, res, { message, field: 'name', status: 400 });
        }
        const outcome = await deps.activities.upload(currentUser(res), { ...upload, ...fields.data }, signalOnClientLeaving(res));
        if (!outcome.ok && outcome.reason === 'account_gone') return res.redirect(303, '/login');
        if (!outcome.ok) return renderActivities(deps, req, res, { message: outcome.message, field: 'file', status: 400 });
        flash(
          req,
          outcome.created
            ? `Uploaded ${outcome.activity.name}.`
            : `This file was already uploaded: it is kept once, as ${outcome.activity.name}.`,
        );
        res.redirect(303, '/activities');
      }),
  );

  return router;
}

/** The Activities page: the list with each upload's status, and Delete (here only: the service documents no delete). */
export function activitiesPages(deps: Dependencies): Router {
  const router = Router();
  router.use('/activities', requireUserPage);

  router.get('/activities', (req, res) => renderActivities(deps, req, res));

  router.get('/activities/:id/delete', async (req, res) => {
    const id = activityIdSchema.safeParse(req.params.id);
    const activity = id.success ? (await deps.activities.list(currentUser(res))).find((entry) => entry.id === id.data) : undefined;
    if (!activity && redirectIfDeleted(req, res, `/activities/${req.params.id}`)) return;
    if (!activity) return renderNoSuchActivity(req, res);
    renderConfirmation(deps.renderPage, req, res, {
      heading: `Delete ${activity.name}?`,
      lines: [
        'It is deleted from this app. The Athlete Data Service documents no way to delete an upload, so it keeps any copy it was sent.',
      ],
      action: `/activities/${activity.id}/delete`,
      confirm: 'Delete',
      cancel: '/activities',
    });
  });

  router.post('/activities/:id/delete', async (req, res) => {
    const id = activityIdSchema.safeParse(req.params.id);
    // Another user's activity is "not found" too, as in the JSON API: its existence is not revealed.
    const name = id.success ? await deps.activities.remove(currentUser(res), id.data) : undefined;
    if (name === undefined) return renderNoSuchActivity(req, res);
    rememberDeleted(req, `/activities/${req.params.id}`, { page: '/activities', said: `${name} was deleted here.` });
    flash(req, `Deleted ${name} here.`);
    res.redirect(303, '/activities');
  });

  function renderNoSuchActivity(req: Request, res: Response) {
    const page = { title: 'Not found', heading: 'No such activity', message: 'It does not exist, or is not yours.' };
    deps.renderPage(req, res, 'error', page, 404);
  }

  return router;
}
