import type { DocumentedSetting, SettingReader } from '../config.js';

/**
 * The configuration table of docs/configuration.md, for `npm run settings`. The settings'
 * declarations are the only list of them; the table is printed from them and never edited by hand.
 */

/** How the table writes a setting's readers: `web`, `worker` or `both`, then `, scripts` if they read it too. */
function readByCell(readers: SettingReader[]): string {
  const processes =
    readers.includes('web') && readers.includes('worker') ? 'both' : readers.filter((reader) => reader !== 'scripts').join('');
  return readers.includes('scripts') ? `${processes}, scripts` : processes;
}

/** One row per setting, in the order given: its variable, who reads it, what it is unset, and what it means. */
export function settingsTable(settings: DocumentedSetting[]): string {
  const rows = settings.map(
    ({ name, readers, whenUnset, meaning }) => `| \`${name}\` | ${readByCell(readers)} | ${whenUnset} | ${meaning} |`,
  );
  return ['| Variable | Read by | Default | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}

/** `markdown` with its settings table (the first table, from its header line on) replaced by `table`. */
export function withSettingsTable(markdown: string, table: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.startsWith('| Variable |'));
  if (start === -1) throw new Error('no settings table (a line starting "| Variable |")');
  const after = lines.findIndex((line, index) => index > start && !line.startsWith('|'));
  return [...lines.slice(0, start), table, ...lines.slice(after === -1 ? lines.length : after)].join('\n');
}
