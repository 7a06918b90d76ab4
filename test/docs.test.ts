import { describe, expect, it } from 'vitest';
import { settingReaders, type SettingReader } from '../src/config.js';
import {
  brokenLinkReason,
  documentationFiles,
  headingAnchors,
  markdownSection,
  readProjectFile,
  relativeLinks,
} from './helpers/project-docs.js';

/** A setting as `.env.example` shows it: set to a value, or commented out (unset, with an example). */
interface ExampleSetting {
  value: string;
  commentedOut: boolean;
}

function envExampleSettings(): Map<string, ExampleSetting> {
  const lines = readProjectFile('.env.example').split('\n');
  const settings = lines.flatMap((line) => {
    const match = /^(# )?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    return match ? [[match[2]!, { value: match[3]!, commentedOut: match[1] !== undefined }] as const] : [];
  });
  return new Map(settings);
}

/** The README's configuration table: variable → its Read by and Default cells. */
function readmeSettings(): Map<string, { readBy: string; default: string }> {
  const section = markdownSection(readProjectFile('README.md'), 'Configuration');
  const rows = [...section.matchAll(/^\| `([A-Z_]+)` \| ([^|]+) \| ([^|]+) \|/gm)];
  return new Map(rows.map((match) => [match[1]!, { readBy: match[2]!.trim(), default: match[3]!.trim() }]));
}

function readmeDefaults(): Map<string, string> {
  return new Map([...readmeSettings()].map(([name, cells]) => [name, cells.default]));
}

/** How the README writes a setting's readers: `web`, `worker` or `both`, then `, scripts` if they read it too. */
function readByCell(readers: SettingReader[]): string {
  const processes =
    readers.includes('web') && readers.includes('worker') ? 'both' : readers.filter((reader) => reader !== 'scripts').join('');
  return readers.includes('scripts') ? `${processes}, scripts` : processes;
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

  it.each([...example].filter(([, setting]) => !setting.commentedOut))('agree on the default of %s', (key, { value }) => {
    const cell = readme.get(key) ?? '';
    // A required setting has no default: .env.example shows an example of it, or leaves it to fill in.
    if (cell === '(required)') return;
    expect(singleDefault(cell), `README's default: ${cell}`).toBe(value);
  });

  it('comment out every setting that is off, or worked out from others, unless set', () => {
    const offOrWorkedOut = [...readme].filter(([, cell]) => cell !== '(required)' && singleDefault(cell) === undefined);
    expect(offOrWorkedOut.map(([key]) => key)).toEqual(expect.arrayContaining(['METRICS_PORT', 'SHUTDOWN_TIMEOUT_MS']));
    for (const [key] of offOrWorkedOut) expect(example.get(key)?.commentedOut, key).toBe(true);
  });
});

describe("the README's configuration table", () => {
  it('says of every setting the processes that read it, as the configuration parses them', () => {
    const documented = new Map([...readmeSettings()].map(([name, cells]) => [name, cells.readBy]));
    const parsed = new Map([...settingReaders()].map(([name, readers]) => [name, readByCell(readers)]));
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(parsed));
  });
});

describe('the links of README.md and docs/', () => {
  it.each(documentationFiles())('%s: every link inside the project leads to a file, and to a heading there', (path) => {
    const broken = relativeLinks(path).flatMap((link) => {
      const reason = brokenLinkReason(link);
      return reason === undefined ? [] : [`${link.target}: ${reason}`];
    });
    expect(broken).toEqual([]);
  });

  it('README.md links every file in docs/', () => {
    const linked = new Set(relativeLinks('README.md').map((link) => link.target.split('#')[0]));
    const docs = documentationFiles().filter((path) => path !== 'README.md');
    expect(docs.filter((path) => !linked.has(path))).toEqual([]);
  });

  it('tell a missing file or heading from one that exists', () => {
    expect(brokenLinkReason({ from: 'docs/testing.md', target: 'commands.md#the-demo' })).toBeUndefined();
    expect(brokenLinkReason({ from: 'docs/testing.md', target: '../README.md#configuration' })).toBeUndefined();
    expect(brokenLinkReason({ from: 'README.md', target: 'docs/nowhere.md' })).toBe('docs/nowhere.md does not exist');
    expect(brokenLinkReason({ from: 'README.md', target: '#no-such-heading' })).toBe('README.md has no heading #no-such-heading');
    expect(brokenLinkReason({ from: 'README.md', target: 'package.json#scripts' })).toBe(
      'package.json is not Markdown, so it has no #scripts',
    );
  });

  it('spell anchors as GitHub does: lower case, punctuation and code marks dropped, a repeat numbered', () => {
    const headings =
      '## The JSON API: rules every request follows\n### 4. Who waits: two lanes, one budget\n## The production commands and `dist/`\n## Notes\n## Notes\n';
    expect([...headingAnchors(headings)]).toEqual([
      'the-json-api-rules-every-request-follows',
      '4-who-waits-two-lanes-one-budget',
      'the-production-commands-and-dist',
      'notes',
      'notes-1',
    ]);
  });
});
