import { existsSync } from 'node:fs';
import { z } from 'zod';
import { accountMailSettings, attemptLimitSettings } from './accounts/accounts.settings.js';
import { adminSettings } from './admin/admin.settings.js';
import { budgetSettings } from './budget/budget.settings.js';
import {
  groupsReadBy,
  KindSettings,
  type ConfigOf,
  type ReadBy,
  type Setting,
  type SettingGroup,
  SettingProblem,
} from './config/setting.js';
import { tokenKeySettings, tokenRefreshSettings } from './connections/connections.settings.js';
import { databaseSettings } from './db/database.settings.js';
import { lifetimeSettings } from './entry-point.settings.js';
import { StartupError } from './errors.js';
import { logSettings } from './logger.settings.js';
import { mailSettings, noticeMailSettings } from './notices/mail.settings.js';
import { metricsSettings } from './observability/metrics.settings.js';
import { serviceSettings } from './provider/provider.settings.js';
import { redisSettings } from './redis/redis.settings.js';
import { syncSettings } from './sync/sync.settings.js';
import { sessionSettings } from './web/session.settings.js';
import { publicAddressSettings, webSettings } from './web/web.settings.js';

/**
 * Every setting of the app, parsed once at start-up from the environment. Each module declares its
 * own (`<module>.settings.ts`, in the form of config/setting.ts); this file only composes them.
 * Entry points call the loader of their process (`loadWebConfig`, `loadWorkerConfig`, or a script's
 * own) and stop with its one-line message when it throws; nothing else in the app reads `process.env`.
 * A process parses only the groups it reads, so a setting has no effect, and a mistake in it stops
 * nothing, in a process that does not read it (one .env may serve them all).
 *
 * The kinds' groups (each kind's `settings`) come from the entry points, which know the kinds: this
 * file names none. They are parsed in the same pass, and each kind reads its own part with
 * `config.kindSettings.of(group)`.
 */

/** The shared app's groups, in the order the configuration table lists them, before the kinds' own. */
const SETTING_GROUPS = [
  publicAddressSettings,
  webSettings,
  metricsSettings,
  lifetimeSettings,
  logSettings,
  databaseSettings,
  redisSettings,
  sessionSettings,
  tokenKeySettings,
  serviceSettings,
  budgetSettings,
  tokenRefreshSettings,
  syncSettings,
  mailSettings,
  noticeMailSettings,
  attemptLimitSettings,
  accountMailSettings,
  adminSettings,
] as const;

/** What the scripts read (npm run migrate and resync: the database; npm run reseal: all three). */
const SCRIPT_GROUPS = [logSettings, databaseSettings, tokenKeySettings] as const;

type Group = (typeof SETTING_GROUPS)[number];

/** The kinds' parts of a process's configuration, by group. */
interface OfKinds {
  kindSettings: KindSettings;
}

export type SharedConfig = ConfigOf<Extract<Group, { readBy: 'both' }>>;
export type WebConfig = ConfigOf<Extract<Group, { readBy: 'web' | 'both' }>> & OfKinds;
export type WorkerConfig = ConfigOf<Extract<Group, { readBy: 'worker' | 'both' }>> & OfKinds;
/** Both processes' settings: for what plays both parts at once (the tests' stack, the demo's set-up). */
export type Config = WebConfig & WorkerConfig;

export class ConfigError extends StartupError {
  override name = 'ConfigError';
}

/** `kindGroups`: the registered kinds' groups of settings; none for a process given no kind. */
export function loadWebConfig(env: NodeJS.ProcessEnv, kindGroups: readonly SettingGroup[] = []): WebConfig {
  return parseSettings(groupsReadBy(SETTING_GROUPS, 'web'), env, groupsReadBy(kindGroups, 'web'));
}

export function loadWorkerConfig(env: NodeJS.ProcessEnv, kindGroups: readonly SettingGroup[] = []): WorkerConfig {
  return parseSettings(groupsReadBy(SETTING_GROUPS, 'worker'), env, groupsReadBy(kindGroups, 'worker'));
}

export function loadConfig(env: NodeJS.ProcessEnv, kindGroups: readonly SettingGroup[] = []): Config {
  return parseSettings(SETTING_GROUPS, env, kindGroups);
}

/** For commands that only touch the database (`npm run migrate`): no secrets needed. */
export function loadDatabaseConfig(env: NodeJS.ProcessEnv): Config['database'] {
  return parseSettings([databaseSettings], env, []).database;
}

/** For `npm run reseal`: the database and the token keys; no other secrets needed. */
export function loadTokenKeysConfig(env: NodeJS.ProcessEnv): Pick<Config, 'logLevel' | 'database' | 'tokenEncryption'> {
  return parseSettings(SCRIPT_GROUPS, env, []);
}

/** Reads `.env` from the working directory when there is one; real environment variables win. */
export function readEnvironment(): NodeJS.ProcessEnv {
  if (existsSync('.env')) process.loadEnvFile('.env');
  return process.env;
}

export type SettingReader = 'web' | 'worker' | 'scripts';

/** A setting as the configuration table shows it: its name, the processes that read it, its declaration. */
export interface DocumentedSetting extends Setting {
  name: string;
  readers: SettingReader[];
}

/** The processes a group's `readBy` names. */
const PROCESSES_OF: Record<ReadBy, SettingReader[]> = { web: ['web'], worker: ['worker'], both: ['web', 'worker'] };

/**
 * Every setting, the shared app's then the kinds' (`kindGroups`, in the order of the kinds), with
 * the processes that read it; `scripts` are npm run migrate, resync and reseal.
 */
export function documentedSettings(kindGroups: readonly SettingGroup[]): DocumentedSetting[] {
  const groups: readonly SettingGroup[] = [...SETTING_GROUPS, ...kindGroups];
  const scripts = new Set(SCRIPT_GROUPS.flatMap((group) => Object.keys(group.settings)));
  return groups.flatMap(({ readBy, settings }) =>
    Object.entries(settings).map(([name, declaration]) => ({
      name,
      ...declaration,
      readers: scripts.has(name) ? [...PROCESSES_OF[readBy], 'scripts'] : PROCESSES_OF[readBy],
    })),
  );
}

/**
 * The configuration the groups give: the environment parsed through their settings in one pass
 * (an unset setting with a default parsed as that value), then each group's part read from it:
 * the shared groups' parts merged into one object, the kinds' kept by group in `kindSettings`.
 */
function parseSettings<Read extends SettingGroup>(
  groups: readonly Read[],
  env: NodeJS.ProcessEnv,
  kindGroups: readonly SettingGroup[],
): ConfigOf<Read> & OfKinds {
  const all: readonly SettingGroup[] = [...groups, ...kindGroups];
  const settings: Record<string, Setting> = Object.fromEntries(all.flatMap((group) => Object.entries(group.settings)));
  for (const used of all.flatMap((group) => Object.keys(group.uses ?? {}))) {
    if (!(used in settings)) throw new Error(`${used} is used by a group of settings, but no group read with it declares it`);
  }
  const schema = z
    .object(Object.fromEntries(Object.entries(settings).map(([name, { schema }]) => [name, schema])))
    .transform((values, context) => {
      const parts = all.map((group) => group.read(values));
      const problems = parts.filter((part) => part instanceof SettingProblem);
      for (const { variable, problem } of problems) {
        context.addIssue({ code: 'custom', path: [variable], message: problem, input: values[variable] });
      }
      if (problems.length > 0) return z.NEVER;
      const shared = parts.slice(0, groups.length).reduce<object>((config, part) => ({ ...config, ...part }), {});
      const ofKinds = new Map(kindGroups.map((group, index) => [group, parts[groups.length + index] as object]));
      return { ...shared, kindSettings: new KindSettings(ofKinds) };
    });
  const input = Object.fromEntries(Object.entries(settings).map(([name, declaration]) => [name, env[name] ?? declaration.default]));
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new ConfigError(describeIssues(parsed.error));
  // Each part's type is its group's read's; the merge of them is the intersection ConfigOf names.
  return parsed.data as ConfigOf<Read> & OfKinds;
}

/** One line, one problem per variable: the first thing wrong with it. */
function describeIssues(error: z.ZodError): string {
  const problemByVariable = new Map<string, string>();
  for (const issue of error.issues) {
    const variable = String(issue.path[0]);
    if (!problemByVariable.has(variable)) problemByVariable.set(variable, `${variable} ${issue.message}`);
  }
  return `Invalid configuration: ${[...problemByVariable.values()].join('; ')}`;
}
