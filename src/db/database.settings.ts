import { z } from 'zod';
import { setting, settingGroup } from '../config/setting.js';
import { expecting, wholePositive } from '../config/value-schemas.js';

const DATABASE_URL_HINT = 'sqlite:<path> (for example sqlite:./data/app.db) or a postgres:// URL';

const sqliteUrl = z
  .string()
  .regex(/^sqlite:.+/)
  .transform((value) => ({ kind: 'sqlite' as const, path: value.slice('sqlite:'.length) }));

const postgresUrl = z.url({ protocol: /^postgres(ql)?$/ }).transform((url) => ({ kind: 'postgres' as const, url }));

/** The store: SQLite is one file in this process; Postgres is reached through a pool of connections. */
export const databaseSettings = settingGroup({
  readBy: 'both',
  settings: {
    DATABASE_URL: setting({
      schema: z.string(expecting(DATABASE_URL_HINT)).pipe(z.union([sqliteUrl, postgresUrl], expecting(DATABASE_URL_HINT))),
      default: 'sqlite:./data/app.db',
      meaning:
        "`sqlite:<path>`; the folder is created. Or `postgres://user:password@host:5432/name` (or `postgresql://`) for Postgres, where a write that waits over a second for a lock (or a query five for a free connection) answers 503 like a busy SQLite, and a statement is cut off after 10 s; libpq's `?options=-c%20search_path%3D<schema>` picks a schema.",
    }),
    DATABASE_POOL_SIZE: setting({
      schema: wholePositive('a number of connections, e.g. 10'),
      default: '10',
      meaning: 'Postgres only: connections each process keeps open at most.',
    }),
  },
  read: ({ DATABASE_URL: url, DATABASE_POOL_SIZE: poolSize }) => ({
    database: url.kind === 'sqlite' ? url : { ...url, poolSize },
  }),
});
