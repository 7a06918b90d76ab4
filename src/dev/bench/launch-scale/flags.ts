import { z } from 'zod';
import { countFlag, kindFlag, parseFlags, pathFlag, type FlagsResult } from '../../flags.js';
import type { KindWorkload } from '../../../kinds/workload.js';
import { firstWorkloadThat, workloadCan } from '../../workloads.js';

/** Where the scenario's Postgres database is named when --postgres is not given. */
export const POSTGRES_URL_VARIABLE = 'BENCH_POSTGRES_URL';

/** What the scenario needs of a kind: imported rows written straight into the store, and a bulk import (the newcomer's). */
const fillsABacklog = (workload: KindWorkload) => workload.insertImported !== undefined && workload.bulk !== undefined;

/** The kind written unless --kind names another: the first registered one that can; none in an app without one. */
export const LAUNCH_SCALE_KIND = firstWorkloadThat(fillsABacklog);

const flagsSchema = z.object({
  scenario: z.literal('launch-scale'),
  /** The kind written; its workload must write imported rows straight into the store and have a bulk import (the newcomer's). */
  kind: kindFlag(
    '--kind must name a kind whose workload can insert imported rows and has a bulk import, and no registered kind has both',
  ).refine((name) => workloadCan(name, fillsABacklog), {
    error: '--kind must name a kind whose workload can insert imported rows and has a bulk import',
  }),
  people: countFlag('people'),
  days: countFlag('days').pipe(z.number().max(2000, { error: '--days must be at most 2000' })),
  active: countFlag('active'),
  rate: countFlag('rate'),
  workers: countFlag('workers'),
  /** How long the app runs on the backlog, in minutes. */
  minutes: countFlag('minutes'),
  /** How often /metrics is scraped, in seconds. */
  scrapeS: countFlag('scrape-s'),
  /** `full`: people writing now, a newcomer and a failover too; `queries`: the backlog's statements, scrapes and rebuild alone. */
  mode: z.enum(['full', 'queries'], { error: '--mode must be full or queries' }),
  postgres: z
    .string({ error: `--postgres must name the Postgres database to fill (postgres://…), or ${POSTGRES_URL_VARIABLE} be set` })
    .regex(/^postgres(ql)?:\/\//, { error: '--postgres must be a postgres:// URL' }),
  results: pathFlag('results'),
});

export type LaunchScaleFlags = z.infer<typeof flagsSchema>;

/** A partner's launch size at the low end: 10,000 people with a year of history each, 2 workers, a rate of 200/s, scraped every 15 s. */
const DEFAULTS = {
  scenario: 'launch-scale',
  kind: LAUNCH_SCALE_KIND,
  people: '10000',
  days: '365',
  active: '10',
  rate: '200',
  workers: '2',
  minutes: '3',
  'scrape-s': '15',
  mode: 'full',
  results: 'bench/results',
};

export function parseLaunchScaleFlags(args: string[], env: NodeJS.ProcessEnv): FlagsResult<LaunchScaleFlags> {
  return parseFlags(args, flagsSchema, { ...DEFAULTS, postgres: env[POSTGRES_URL_VARIABLE] });
}

export const LAUNCH_SCALE_USAGE = `npm run bench -- --scenario launch-scale --postgres postgres://… (or ${POSTGRES_URL_VARIABLE}) [--kind <name>] --people 10000 --days 365 --active 10 --rate 200 --workers 2 --minutes 3 --scrape-s 15 --mode full|queries [--results bench/results]`;
