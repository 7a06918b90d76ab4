import { describe, expect, it } from 'vitest';
import { documentedSettings } from '../src/config.js';
import { settingsTable } from '../src/dev/settings-table.js';
import { KIND_SETTING_GROUPS } from '../src/kinds.js';
import {
  brokenLinkReason,
  documentationFiles,
  headingAnchors,
  markdownSection,
  readProjectFile,
  relativeLinks,
} from './helpers/project-docs.js';

/** The settings `.env.example` sets, by name, with the value it gives each. */
function envExampleSettings(): Map<string, string> {
  const lines = readProjectFile('.env.example').split('\n');
  return new Map(
    lines.flatMap((line) => {
      const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
      return match ? [[match[1]!, match[2]!] as const] : [];
    }),
  );
}

describe('the configuration table of docs/configuration.md', () => {
  it('is the one npm run settings prints from the declarations', () => {
    const section = markdownSection(readProjectFile('docs/configuration.md'), 'The settings');
    const table = section.split('\n').filter((line) => line.startsWith('|'));
    expect(table, 'paste what npm run settings prints').toEqual(settingsTable(documentedSettings(KIND_SETTING_GROUPS)).split('\n'));
  });
});

describe('.env.example', () => {
  const example = envExampleSettings();
  const declared = new Map(documentedSettings(KIND_SETTING_GROUPS).map((setting) => [setting.name, setting]));

  it('sets only declared settings, and every one a process cannot start without', () => {
    expect([...example.keys()].filter((name) => !declared.has(name))).toEqual([]);
    const required = [...declared.values()].filter(
      (setting) => setting.default === undefined && !setting.schema.safeParse(undefined).success,
    );
    expect(required.map((setting) => setting.name)).toEqual(expect.arrayContaining(['SESSION_SECRET', 'TOKEN_ENCRYPTION_KEY']));
    expect(required.filter((setting) => !example.has(setting.name)).map((setting) => setting.name)).toEqual([]);
  });

  it.each([...example].filter(([, value]) => value !== ''))('gives %s a value it takes', (name, value) => {
    expect(declared.get(name)?.schema.safeParse(value).success).toBe(true);
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
