import { tmpdir } from 'node:os';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { setting, settingGroup } from '../config/setting.js';
import { expecting, wholeUpTo } from '../config/value-schemas.js';

const UPLOAD_RATE_HINT = 'bytes per second from 1024 up to 1073741824 (1 GiB), e.g. 16384 (16 KiB)';

/** What an upload of a .fit file may be, and how the web receives and checks it (receive-upload.ts, fit-file-checker.ts). */
export const activityUploadSettings = settingGroup({
  readBy: 'web',
  settings: {
    // The document states no file size (§8): 25 MiB holds hours of second-by-second recording.
    ACTIVITY_MAX_BYTES: setting({
      schema: wholeUpTo(100 * 1024 * 1024, 'a number of bytes up to 104857600 (100 MiB), e.g. 26214400 (25 MiB)'),
      default: '26214400',
      gloss: '25 MiB',
      meaning:
        "The largest .fit file an upload may carry; a larger one is answered 413 (at once when its `Content-Length` says so, else as soon as the file passes the limit, what was written of it removed). At most 100 MiB. An upload's file is never held in the web's memory: it is written as it arrives to a file of its own in `ACTIVITY_UPLOAD_FOLDER`, which the check reads and the store copies from, and which is removed however the upload ends. Each file is checked with the FIT SDK in a worker thread, one file at a time per thread, so a large file never holds up other requests: files up to 256 KiB have a thread of their own, so a small upload never waits behind a large one, and each thread takes the waiting file due first (its arrival plus its deadline, `ACTIVITY_CHECK_S_PER_MIB`), so a file waits behind larger ones only as long as they have waited longer than their size's extra time. The SDK decodes the file's messages and builds nothing more (by default it merges heart-rate samples into records afterwards, which would take a 5 MB file to 1.7 GB). A file of more than 500,000 messages or 2,000,000 field values is refused (400, \"too large to check\"), whatever its size in bytes: the SDK holds every message it decodes (a text counts as one value per 50 characters); a day of one-second records with ten fields each is 86,400 messages and under a million values. Whatever a file holds, a check's thread may take at most 144 MB of JavaScript heap (V8's limits for the thread: 128 MB old, 16 MB young generation; the costliest files within the counts take about 85 MB): a file that needs more is refused as too large to check, and the process goes on. So an upload being checked takes at most its file (read by the check's thread) plus 144 MB and about 25 MB of the thread's own above what the web process held before, and the uploads being received a few MB; a large file's thread ends with its check, giving all of it back. The costliest files we could make, one at a time or with four 25 MiB uploads held open beside them, took the web process (`npm start`, 105–137 MB before each) to at most 276 MB ([the figures](performance.md#the-figures)). A check whose client leaves is dropped while it waits and stopped while it runs.",
    }),
    // The slowest file fit-file.ts lets through takes about half a second per MiB here.
    ACTIVITY_CHECK_S_PER_MIB: setting({
      schema: wholeUpTo(60, 'a number of seconds up to 60, e.g. 2'),
      default: '2',
      meaning:
        'How long checking a .fit file may take once its thread has it: 2 s, and this many seconds more for each MiB of the file (a 25 MiB file 52 s; at most 60 s per MiB). A file past it is refused (400, "too complex to check") and its thread stopped. A check takes a few seconds at most for an activity\'s file (the counts above bound what it decodes), and about half a second per MiB for the slowest file we could build within the bounds below ([the figures](performance.md#the-figures)): the decoder reads every field of a message and looks each developer field up among its developer\'s field descriptions, so a file whose messages have more fields than bytes, or that describes more than 255 fields of one developer (its field numbers are bytes), is refused at once (400, "too complex to check"). So a few people\'s files hold a check for seconds, not minutes (files built so from six accounts leave another person\'s small and large uploads answered 201 within seconds).',
    }),
    // Uploads keep their files in ACTIVITY_UPLOAD_FOLDER until they are stored: this many files of ACTIVITY_MAX_BYTES in all (upload-slots.ts).
    ACTIVITY_MAX_CONCURRENT_UPLOADS: setting({
      schema: wholeUpTo(256, 'a number of uploads up to 256, e.g. 16'),
      default: '16',
      meaning:
        "How many files of `ACTIVITY_MAX_BYTES` the uploads one web process is receiving and checking may hold in `ACTIVITY_UPLOAD_FOLDER` in all (at most 256; 400 MiB of disk at the defaults): each upload's file is kept there until it is stored, and counts by the bytes it has received, so that uploads arriving slowly hold little and a few of them cannot keep everyone else's out (four held open from four accounts on four addresses, or four of 25 MiB sent at full speed and then held from two addresses, leave another person's uploads answered 201). An upload whose `Content-Length` would take them past it is answered at once, its body unread, and one whose body does as it arrives is cut there: 503 `busy` with `Retry-After`. A person has one upload in progress at a time: a second is answered 429 with `Retry-After`.",
    }),
    ACTIVITY_UPLOAD_FOLDER: setting({
      schema: z.string().refine(isAbsolute, expecting('an absolute path, e.g. /var/tmp/athlete-sync-uploads')),
      unset: "the system's temporary folder",
      meaning:
        "Where the files of uploads in progress are written (an absolute path; made at start if missing, readable by the app's user only). Each file is readable by the app's user only, and removed once its upload is answered, refused or abandoned; at start, a web process removes those that a process killed midway left, untouched for an hour. Give it a disk, not a memory file system such as a `tmpfs` `/tmp`, or uploads take memory again.",
    }),
    // Two, so that two people behind one address (a household, an office) can upload at once.
    ACTIVITY_UPLOADS_PER_ADDRESS: setting({
      schema: wholeUpTo(64, 'a number of uploads up to 64, e.g. 2'),
      default: '2',
      meaning:
        'Uploads in progress from one client address at once (an IPv6 /64 counts as one address; at most 64): another is answered 429 `too_many_requests` with `Retry-After`, its body unread, so that accounts made on one machine cannot hold many uploads open. Two, so that two people behind one address (a household, an office) can upload at once; raise it when many people share an address.',
    }),
    ACTIVITY_UPLOAD_TIMEOUT_S: setting({
      schema: wholeUpTo(3600, 'a number of seconds up to 3600, e.g. 120'),
      default: '120',
      meaning:
        "How long an upload's body may take to arrive (at most 3600); a slower one, or one that stops before its end, is answered 408 and its connection closed, instead of holding what it sent until Node's own 5-minute request timeout.",
    }),
    // 16 KiB/s is 128 kbit/s, a poor mobile link: a 1 MB file in about a minute.
    ACTIVITY_UPLOAD_MIN_BYTES_PER_S: setting({
      schema: wholeUpTo(1024 ** 3, UPLOAD_RATE_HINT).min(1024, expecting(UPLOAD_RATE_HINT)),
      default: '16384',
      gloss: '16 KiB/s',
      meaning:
        "How slowly an upload's body may arrive: in every 10 s from its start it must bring 10 s' worth at this rate (at least 1024 bytes a second), and is answered 408, its connection closed and what it sent removed, once it has not: holding an upload open costs a client this rate for as long as it does, and a body that stops is cut within about 10 s however fast it came before. 16 KiB/s is a poor mobile link (128 kbit/s): a 1 MB file in about a minute.",
    }),
  },
  read: (values) => ({
    activities: {
      /** The largest .fit file an upload may carry; larger ones are answered 413. */
      maxBytes: values.ACTIVITY_MAX_BYTES,
      /** How many files of maxBytes the uploads in progress may hold in all, one upload per person at most. */
      maxConcurrentUploads: values.ACTIVITY_MAX_CONCURRENT_UPLOADS,
      /** Where the files of uploads in progress are written until they are stored. */
      uploadFolder: values.ACTIVITY_UPLOAD_FOLDER ?? tmpdir(),
      /** Uploads in progress from one client address (an IPv6 /64) at once. */
      uploadsPerAddress: values.ACTIVITY_UPLOADS_PER_ADDRESS,
      /** How long an upload's body may take to arrive. */
      uploadTimeoutMs: values.ACTIVITY_UPLOAD_TIMEOUT_S * 1000,
      /** The slowest rate an upload's body may arrive at, over any 10 s. */
      uploadMinBytesPerS: values.ACTIVITY_UPLOAD_MIN_BYTES_PER_S,
      /** How long checking a file may take for each MiB, beyond the 2 s every check may take (fit-file-checker.ts). */
      checkMsPerMib: values.ACTIVITY_CHECK_S_PER_MIB * 1000,
    },
  }),
});

/** After the service has a file: keep its bytes, or delete them (the activity keeps its hash). */
export const activityRetentionSettings = settingGroup({
  readBy: 'worker',
  settings: {
    ACTIVITY_RETENTION: setting({
      schema: z.enum(['keep', 'prune-after-upload'], expecting('keep or prune-after-upload')),
      default: 'keep',
      meaning:
        "What happens to a .fit file's bytes once the service has it: `keep` them, or `prune-after-upload` (the activity keeps its SHA-256, name and status).",
    }),
  },
  read: (values) => ({ activityRetention: values.ACTIVITY_RETENTION }),
});
