import type { ServiceApi } from '../provider/api.js';
import type { FileContent } from '../provider/multipart-body.js';

/** Section 2.2: the original file, as the person sent it, read as it is sent. */
export interface ActivityUpload {
  file: FileContent;
  fileName: string;
  name: string;
  metadata: Record<string, unknown>;
}

/** Uploads an activity's .fit file (§4.4); the service upserts it by the file's hash. */
export async function uploadActivity(api: ServiceApi, userId: number, { file, fileName, name, metadata }: ActivityUpload): Promise<void> {
  await api.postMultipart(userId, '/api/workouts/upload-fit', [
    ['file', { fileName, content: file }],
    ['name', name],
    ['metadata', JSON.stringify(metadata)],
  ]);
}
