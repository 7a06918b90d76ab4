import { readFileSync, writeFileSync } from 'node:fs';
import { documentedSettings } from '../config.js';
import { KIND_SETTING_GROUPS } from '../kinds.js';
import { settingsTable, withSettingsTable } from './settings-table.js';

/**
 * `npm run settings`: the configuration table of docs/configuration.md, read from the settings'
 * declarations; with `-- --write`, written into that file in place of the table it holds (after a
 * kind is added or removed, say).
 */
const CONFIGURATION_DOC = new URL('../../docs/configuration.md', import.meta.url);
const table = settingsTable(documentedSettings(KIND_SETTING_GROUPS));
if (process.argv.includes('--write')) {
  writeFileSync(CONFIGURATION_DOC, withSettingsTable(readFileSync(CONFIGURATION_DOC, 'utf8'), table));
  console.log('docs/configuration.md: the settings table is written');
} else {
  console.log(table);
}
