import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { measurementNames } from '../src/wellness/measurement-declaration.js';
import { WELLNESS_MEASUREMENTS } from '../src/wellness/wellness.fields.js';

/** A setting as `.env.example` shows it: set to a value, or commented out (unset, with an example). */
interface ExampleSetting {
  value: string;
  commentedOut: boolean;
}

function readProjectFile(name: string): string {
  return readFileSync(new URL(`../${name}`, import.meta.url), 'utf8');
}

function envExampleSettings(): Map<string, ExampleSetting> {
  const lines = readProjectFile('.env.example').split('\n');
  const settings = lines.flatMap((line) => {
    const match = /^(# )?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    return match ? [[match[2]!, { value: match[3]!, commentedOut: match[1] !== undefined }] as const] : [];
  });
  return new Map(settings);
}

/** The README's configuration table (not the sandbox's): variable → its Default cell. */
function readmeDefaults(): Map<string, string> {
  const readme = readProjectFile('README.md');
  const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf("### The sandbox's settings"));
  return new Map([...section.matchAll(/^\| `([A-Z_]+)` \| ([^|]+) \|/gm)].map((match) => [match[1]!, match[2]!.trim()]));
}

/** A Default cell that is one value: "`10`", "`26214400` (25 MiB)", or "empty". */
function singleDefault(cell: string): string | undefined {
  if (cell === 'empty') return '';
  return /^`([^`]*)`( \([^)]*\))?$/.exec(cell)?.[1];
}

describe('.env.example and the README', () => {
  const example = envExampleSettings();
  const readme = readmeDefaults();

  it('name the same settings', () => {
    expect([...example.keys()].sort()).toEqual([...readme.keys()].sort());
  });

  it.each([...example].filter(([, setting]) => !setting.commentedOut))(
    'agree on the default of %s',
    (key, { value }) => {
      const cell = readme.get(key) ?? '';
      // A required setting has no default: .env.example shows an example of it, or leaves it to fill in.
      if (cell === '(required)') return;
      expect(singleDefault(cell), `README's default: ${cell}`).toBe(value);
    },
  );

  it('comment out every setting that is off, or worked out from others, unless set', () => {
    const offOrWorkedOut = [...readme].filter(([, cell]) => cell !== '(required)' && singleDefault(cell) === undefined);
    expect(offOrWorkedOut.map(([key]) => key)).toEqual(expect.arrayContaining(['METRICS_PORT', 'SHUTDOWN_TIMEOUT_MS']));
    for (const [key] of offOrWorkedOut) expect(example.get(key)?.commentedOut, key).toBe(true);
  });
});

describe("the README's table of wellness measurements", () => {
  it('has a row for each declared measurement, as declared, in order', () => {
    const readme = readProjectFile('README.md');
    const section = readme.slice(readme.indexOf('### Wellness measurements'), readme.indexOf('## Configuration'));
    const rows = section.split('\n').filter((line) => line.startsWith('| `'));
    const declared = measurementNames(WELLNESS_MEASUREMENTS).map((name) => {
      const { unit, min, max, integer, sent } = WELLNESS_MEASUREMENTS[name];
      return `| \`${name}\` | ${unit} | ${min} | ${max} | ${integer ? 'yes' : 'no'} | ${sent === 'record' ? 'own field' : 'rawJson'} |`;
    });
    expect(rows).toEqual(declared);
  });
});
