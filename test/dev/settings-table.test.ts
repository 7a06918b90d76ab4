import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { setting } from '../../src/config/setting.js';
import { settingsTable, withSettingsTable } from '../../src/dev/settings-table.js';

const count = z.coerce.number().int().positive();

describe('the table npm run settings prints', () => {
  it('gives each setting, in the order given, its readers, what it is unset and its meaning', () => {
    const settings = [
      { name: 'SECRET', readers: ['web'] as const, ...setting({ schema: z.string(), meaning: 'Signs things.' }) },
      { name: 'TRIES', readers: ['worker'] as const, ...setting({ schema: count, default: '8', meaning: 'Tries.' }) },
      {
        name: 'KEYS',
        readers: ['web', 'worker', 'scripts'] as const,
        ...setting({ schema: z.string(), default: '', meaning: 'Old keys.' }),
      },
      {
        name: 'SIZE',
        readers: ['web', 'worker'] as const,
        ...setting({ schema: count, default: '1048576', gloss: '1 MiB', meaning: 'Most.' }),
      },
      { name: 'MAIL', readers: ['worker'] as const, ...setting({ schema: z.url(), unset: '(off)', meaning: 'The server.' }) },
    ].map((row) => ({ ...row, readers: [...row.readers] }));
    expect(settingsTable(settings).split('\n')).toEqual([
      '| Variable | Read by | Default | Meaning |',
      '|---|---|---|---|',
      '| `SECRET` | web | (required) | Signs things. |',
      '| `TRIES` | worker | `8` | Tries. |',
      '| `KEYS` | both, scripts | empty | Old keys. |',
      '| `SIZE` | both | `1048576` (1 MiB) | Most. |',
      '| `MAIL` | worker | (off) | The server. |',
    ]);
  });
});

describe('npm run settings -- --write', () => {
  it('replaces the table of the document, from its header to its last row, and keeps the rest', () => {
    const document = ['# Settings', '', '| Variable | Read by |', '|---|---|', '| `OLD` | web |', '', 'After.'].join('\n');
    expect(withSettingsTable(document, '| Variable | Read by |\n|---|---|\n| `NEW` | worker |')).toBe(
      ['# Settings', '', '| Variable | Read by |', '|---|---|', '| `NEW` | worker |', '', 'After.'].join('\n'),
    );
  });
});
