import { lockUser } from '../accounts/user.repository.js';
import type { Db } from '../db/database.js';
import type { ServiceApi } from '../provider/api.js';
import { ServiceError } from '../provider/service-error.js';
import type { Sender } from '../sync/sender.js';
import { activityFileKey, type ActivityFiles } from './activity-file-store.js';
import { findActivity, updateActivity } from './activity.repository.js';
import { storedMetadata } from './activity.schemas.js';
import { uploadActivity } from './activity.service.js';

/**
 * An activity is sent as the original file with its name and metadata (§2.2, §4.4); the service
 * upserts it by the file's hash, so sending it again after a rename updates the same workout. The
 * file goes out as it is read from the store, a piece at a time; a delete that removes it meanwhile
 * fails the read, so the service never gets part of a file as the whole.
 */
export function activitySender({ db, api, activityFiles }: { db: Db; api: ServiceApi; activityFiles: ActivityFiles }): Sender {
  return {
    async send({ userId, subject }) {
      const activity = await findActivity(db, userId, Number(subject));
      if (!activity) return 'gone';
      const file = await activityFiles.store.open(activityFileKey(userId, activity.sha256));
      if (file === undefined) {
        if (!(await findActivity(db, userId, activity.id))) return 'gone';
        // Only when a re-upload restoring pruned bytes raced their pruning: no retry brings them back.
        throw new ServiceError('permanent', 'The file is no longer stored in this app: upload it again to send it.');
      }
      await uploadActivity(api, userId, {
        file,
        fileName: activity.file_name,
        name: activity.name,
        metadata: storedMetadata(activity.metadata),
      });
      return 'sent';
    },

    /** With ACTIVITY_RETENTION=prune-after-upload the bytes go once the service has them; the row stays. */
    async afterSynced({ userId, subject }) {
      if (activityFiles.retention !== 'prune-after-upload') return;
      const pruned = await db.transaction().execute(async (trx) => {
        await lockUser(trx, userId);
        const activity = await findActivity(trx, userId, Number(subject));
        if (!activity) return undefined;
        return updateActivity(trx, userId, activity.id, { file_stored: 0 });
      });
      if (pruned) await activityFiles.store.delete(activityFileKey(userId, pruned.sha256));
    },
  };
}
