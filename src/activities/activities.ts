import { findUserById, lockSignedInUser, lockUser } from '../accounts/user.repository.js';
import type { User } from '../accounts/user.table.js';
import type { Db } from '../db/database.js';
import { forgetEntry, markDirty, type OutboxKey } from '../sync/outbox.js';
import { syncFactsOf, syncStatusesOf, type EntrySyncStatus, type SyncFacts } from '../sync/sync-statuses.js';
import type { ActivityFileLock } from './activity-file-lock.js';
import { activityFileKey, type ActivityFileStore, type PiecewiseFile, type StoredFile } from './activity-file-store.js';
import {
  deleteActivity,
  findActivity,
  findActivityByFile,
  insertActivity,
  newestActivities,
  updateActivity,
} from './activity.repository.js';
import { activityNameSchema, metadataText, storedMetadata, type ActivityChanges, type ActivityMetadata } from './activity.schemas.js';
import type { Activity } from './activity.table.js';
import type { FileToCheck, FitFileCheck } from './fit-file-checker.js';

/** An activity as the API and the page show it, with where its upload to the service stands. */
export interface ActivityView {
  id: number;
  name: string;
  metadata: ActivityMetadata;
  sha256: string;
  bytes: number;
  fileName: string;
  /** False once the bytes were pruned after upload (ACTIVITY_RETENTION=prune-after-upload). */
  fileStored: boolean;
  createdAt: string;
  updatedAt: string;
  sync: SyncFacts;
}

/** An upload's file as received: on disk, where the check's thread reads it, its SHA-256 taken as it arrived. */
export interface ReceivedFile extends FileToCheck, PiecewiseFile {
  sha256: string;
}

export interface ActivityUploadInput {
  file: ReceivedFile;
  /** The name of the file as chosen; the activity's name when none is given. */
  fileName: string;
  name?: string;
  metadata?: ActivityMetadata;
}

export type UploadOutcome =
  | { ok: true; created: boolean; activity: ActivityView }
  | { ok: false; reason: 'not_fit'; message: string }
  | { ok: false; reason: 'account_gone' };

export type FileOutcome =
  | { ok: true; file: StoredFile; fileName: string }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'pruned'; message: string }
  | { ok: false; reason: 'account_gone' };

export type ChangeOutcome =
  { ok: true; activity: ActivityView } | { ok: false; reason: 'not_found' } | { ok: false; reason: 'pruned'; message: string };

export interface ActivitiesDependencies {
  db: Db;
  files: ActivityFileStore;
  /** Runs an upload's or a delete's work on one file's bytes and row apart from any other's on the same file. */
  lockFile: ActivityFileLock;
  /** Whether an upload is one valid .fit file (createFitFileChecker: off the event loop). */
  checkFile: FitFileCheck;
  clock: () => Date;
}

/** How many activities a list shows: the newest ones. */
const ACTIVITY_LIST_LIMIT = 200;

const FALLBACK_NAME = 'Activity';
const PRUNED = 'The file was removed from this app after its upload';
const FALLBACK_FILE_NAME = 'activity.fit';

/**
 * Uploading, renaming and deleting .fit activities. A file is one activity per user whatever its
 * name (the service upserts by a hash of the file, §4.4), so each write marks the activity's outbox
 * entry dirty only when what the service would receive changed: its name or metadata.
 */
export function createActivities({ db, files, lockFile, checkFile, clock }: ActivitiesDependencies) {
  async function viewOne(activity: Activity): Promise<ActivityView> {
    const [shown] = await activityViews(db, activity.user_id, [activity]);
    return shown!;
  }

  /**
   * The row of an upload whose bytes are stored: a new activity, or the one this user has of the
   * file; undefined when the account was deleted meanwhile.
   */
  function recordUpload(user: User, input: ActivityUploadInput, sha256: string) {
    const now = clock();
    return db.transaction().execute(async (trx) => {
      await lockUser(trx, user.id);
      if (!(await findUserById(trx, user.id))) return undefined;
      const existing = await findActivityByFile(trx, user.id, sha256);
      if (!existing) {
        const activity = await insertActivity(trx, {
          user_id: user.id,
          sha256,
          name: input.name ?? nameFromFileName(input.fileName),
          metadata: metadataText(input.metadata ?? {}),
          file_name: fileNameToSend(input.fileName),
          bytes: input.file.size,
          file_stored: 1,
          created_at: now.toISOString(),
          updated_at: now.toISOString(),
        });
        await markDirty(trx, activityEntry(activity), now);
        return { created: true, resend: true, activity };
      }
      const { name, metadata, differs } = withChanges(existing, input);
      // Sending the file again is what a failed send asks for (its bytes lost here, say).
      const resend = differs || (await lastSendFailed(trx, existing));
      if (!resend && existing.file_stored === 1) return { created: false, resend, activity: existing };
      const activity = await updateActivity(trx, user.id, existing.id, { name, metadata, file_stored: 1, updated_at: now.toISOString() });
      if (resend) await markDirty(trx, activityEntry(activity), now);
      return { created: false, resend, activity };
    });
  }

  return {
    list: (user: User): Promise<ActivityView[]> => newestActivityViews(db, user.id),

    /** The activity's .fit file exactly as uploaded, while this app keeps it. */
    async file(user: User, id: number): Promise<FileOutcome> {
      const activity = await findActivity(db, user.id, id);
      if (!activity) return (await findUserById(db, user.id)) ? { ok: false, reason: 'not_found' } : { ok: false, reason: 'account_gone' };
      const file = activity.file_stored === 1 ? await files.open(activityFileKey(user.id, activity.sha256)) : undefined;
      if (file === undefined) return { ok: false, reason: 'pruned', message: PRUNED };
      return { ok: true, file, fileName: activity.file_name };
    },

    /**
     * Checks the file (given up when `signal` aborts: its client left), stores its bytes, then records the activity. The bytes go first, under a key
     * made of their hash: a crash in between leaves bytes no activity names (harmless, and the retry
     * puts the same key again), never an activity without its bytes. A file uploaded again restores
     * bytes pruned after an earlier upload, changes only the fields it gives, and sends the file
     * again when its last send failed. A delete of the same file waits for it (lockFile): otherwise it
     * could remove the row this upload finds gone and the bytes this upload's new row needs. An
     * account deleted while its file was checked or stored keeps none of it: the deletion removed
     * the bytes stored before it, and this removes those stored after.
     */
    async upload(user: User, input: ActivityUploadInput, signal?: AbortSignal): Promise<UploadOutcome> {
      const problem = await checkFile(input.file, signal);
      if (problem !== undefined) return { ok: false, reason: 'not_fit', message: `${problem}.` };
      const { sha256 } = input.file;
      const key = activityFileKey(user.id, sha256);
      const outcome = await lockFile(key, async () => {
        await files.put(key, input.file);
        const recorded = await recordUpload(user, input, sha256);
        if (recorded === undefined) await files.delete(key);
        return recorded;
      });
      if (outcome === undefined) return { ok: false, reason: 'account_gone' };
      return { ok: true, created: outcome.created, activity: await viewOne(outcome.activity) };
    },

    /** A new name or metadata is sent with the file again, so the file must still be here. */
    async change(user: User, id: number, changes: ActivityChanges): Promise<ChangeOutcome> {
      const now = clock();
      const outcome = await db.transaction().execute(async (trx) => {
        await lockSignedInUser(trx, user.id);
        const existing = await findActivity(trx, user.id, id);
        if (!existing) return { ok: false as const, reason: 'not_found' as const };
        if (existing.file_stored === 0) {
          return { ok: false as const, reason: 'pruned' as const, message: `${PRUNED}: upload the file again to change it.` };
        }
        const { name, metadata, differs } = withChanges(existing, changes);
        if (!differs) return { ok: true as const, resend: false, activity: existing };
        const activity = await updateActivity(trx, user.id, id, { name, metadata, updated_at: now.toISOString() });
        await markDirty(trx, activityEntry(activity), now);
        return { ok: true as const, resend: true, activity };
      });
      if (!outcome.ok) return outcome;
      return { ok: true, activity: await viewOne(outcome.activity) };
    },

    /**
     * Deletes the activity here only: the service documents no delete (§4.4). The row and its outbox
     * entry go in one transaction, the bytes after it; a crash in between leaves bytes no activity
     * names, which is harmless. An upload of the same file waits for it (lockFile), so the bytes
     * removed are never those of a row the upload commits meanwhile. Answers the name of the
     * activity deleted, undefined when there was none.
     */
    async remove(user: User, id: number): Promise<string | undefined> {
      const activity = await findActivity(db, user.id, id);
      if (!activity) return undefined;
      const key = activityFileKey(user.id, activity.sha256);
      return lockFile(key, async () => {
        const removed = await db.transaction().execute(async (trx) => {
          await lockSignedInUser(trx, user.id);
          // Read again under the lock: the same request may have been sent twice.
          if (!(await findActivity(trx, user.id, id))) return false;
          await deleteActivity(trx, user.id, id);
          await forgetEntry(trx, activityEntry(activity));
          return true;
        });
        if (!removed) return undefined;
        await files.delete(key);
        return activity.name;
      });
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;

/** The user's newest activities (at most ACTIVITY_LIST_LIMIT), each with where its upload stands. */
export async function newestActivityViews(db: Db, userId: number): Promise<ActivityView[]> {
  return activityViews(db, userId, await newestActivities(db, userId, ACTIVITY_LIST_LIMIT));
}

/** The activities as the API shows them, each with where its upload stands. */
export async function activityViews(db: Db, userId: number, activities: Activity[]): Promise<ActivityView[]> {
  const statuses = await syncStatusesOf(
    db,
    userId,
    'activities',
    activities.map((activity) => String(activity.id)),
  );
  const bySubject = new Map(statuses.map((status) => [status.subject, status]));
  return activities.map((activity) => toView(activity, bySubject.get(String(activity.id))));
}

async function lastSendFailed(db: Db, activity: Activity): Promise<boolean> {
  const [sync] = await syncStatusesOf(db, activity.user_id, 'activities', [String(activity.id)]);
  return sync?.status === 'failed';
}

export function activityEntry(activity: Pick<Activity, 'id' | 'user_id'>): OutboxKey {
  return { userId: activity.user_id, kind: 'activities', subject: String(activity.id) };
}

/** The name and metadata the changes give the activity, and whether the service would receive anything new. */
function withChanges(activity: Activity, changes: { name?: string; metadata?: ActivityMetadata }) {
  const name = changes.name ?? activity.name;
  const metadata = changes.metadata === undefined ? activity.metadata : metadataText(changes.metadata);
  return { name, metadata, differs: name !== activity.name || metadata !== activity.metadata };
}

/** The service requires a name (its document does not say): the file's name without `.fit`. */
function nameFromFileName(fileName: string): string {
  return activityNameSchema.safeParse(fileName.replace(/\.fit$/i, '')).data ?? FALLBACK_NAME;
}

/** The file name travels to the service in the part's headers: only a plain one is passed on. */
function fileNameToSend(fileName: string): string {
  return activityNameSchema.safeParse(fileName).data ?? FALLBACK_FILE_NAME;
}

function toView(activity: Activity, sync: EntrySyncStatus | undefined): ActivityView {
  return {
    id: activity.id,
    name: activity.name,
    metadata: storedMetadata(activity.metadata),
    sha256: activity.sha256,
    bytes: activity.bytes,
    fileName: activity.file_name,
    fileStored: activity.file_stored === 1,
    createdAt: activity.created_at,
    updatedAt: activity.updated_at,
    sync: sync ? syncFactsOf(sync) : { status: 'pending' },
  };
}
