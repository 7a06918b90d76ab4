import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { amountNames } from '../src/nutrition/amount-declaration.js';
import { MEAL_AMOUNTS } from '../src/nutrition/meal.fields.js';
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

/** The rows of the README's table under `heading`, up to the next heading. */
function readmeRows(heading: string): string[] {
  const readme = readProjectFile('README.md');
  const start = readme.indexOf(`\n${heading}\n`);
  const section = readme.slice(start, readme.indexOf('\n#', start + 1));
  return section.split('\n').filter((line) => line.startsWith('| `'));
}

/** How the README's tables say where a field is sent. */
const SENT_AS = { record: 'own field', rawJson: 'rawJson' } as const;

/** A limit the README names by its variable. */
const LIMIT_VARIABLES = { maxGrams: 'MEAL_MAX_GRAMS', maxKcal: 'MEAL_MAX_KCAL' } as const;

describe("the README's table of meal item amounts", () => {
  it('has a row for each declared amount, as declared, in order', () => {
    const declared = amountNames(MEAL_AMOUNTS).map((name) => {
      const { unit, max, sent } = MEAL_AMOUNTS[name];
      const most = typeof max === 'number' ? String(max) : `\`${LIMIT_VARIABLES[max]}\``;
      return `| \`${name}\` | ${unit} | ${most} | ${SENT_AS[sent]} |`;
    });
    expect(readmeRows('### Meal item amounts')).toEqual(declared);
  });
});

describe("the README's table of wellness measurements", () => {
  it('has a row for each declared measurement, as declared, in order', () => {
    const rows = readmeRows('### Wellness measurements');
    const declared = measurementNames(WELLNESS_MEASUREMENTS).map((name) => {
      const { unit, min, max, integer, sent } = WELLNESS_MEASUREMENTS[name];
      return `| \`${name}\` | ${unit} | ${min} | ${max} | ${integer ? 'yes' : 'no'} | ${SENT_AS[sent]} |`;
    });
    expect(rows).toEqual(declared);
  });
});
