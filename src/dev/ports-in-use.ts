import { once } from 'node:events';
import { createServer } from 'node:net';
import { StartupError } from '../errors.js';

/** A port a local run listens on, and the setting that moves it. */
export interface PortUse {
  port: number;
  host: string;
  /** The setting that moves it: `PORT`, `SANDBOX_PORT`, … */
  setting: string;
  /** How far above the setting's value the port is: worker n's metrics port is METRICS_PORT + n. */
  offset: number;
  /** What listens there, in words: "the web app", "worker 1's metrics". */
  what: string;
}

/** Whether this process could listen on `port` of `host` now. */
async function isFree(port: number, host: string): Promise<boolean> {
  const server = createServer();
  server.listen({ port, host, exclusive: true });
  try {
    await once(server, 'listening');
  } catch {
    return false;
  }
  await new Promise((resolve) => server.close(resolve));
  return true;
}

/** How many ports above a taken one to look for a free one to suggest. */
const SUGGESTION_RANGE = 100;

/**
 * A value for `setting` under which each of its uses is free and meets none of the run's other
 * ports, looked for above its current value; undefined when none is found nearby.
 */
async function freeValueFor(setting: string, uses: PortUse[]): Promise<number | undefined> {
  const own = uses.filter((use) => use.setting === setting);
  const others = new Set(uses.filter((use) => use.setting !== setting).map((use) => use.port));
  const current = own[0]!.port - own[0]!.offset;
  const highestOffset = Math.max(...own.map((use) => use.offset));
  for (let value = current + 1; value <= current + SUGGESTION_RANGE && value + highestOffset <= 65_535; value++) {
    const ports = own.map((use) => ({ port: value + use.offset, host: use.host }));
    if (ports.some(({ port }) => others.has(port))) continue;
    if ((await Promise.all(ports.map(({ port, host }) => isFree(port, host)))).every(Boolean)) return value;
  }
  return undefined;
}

/**
 * The run's refusal when ports it would listen on are taken: each named with what would listen
 * there and the setting that moves it, and a command line with free values for those settings.
 */
export async function takenPortsError(taken: PortUse[], uses: PortUse[], command: string): Promise<StartupError> {
  const lines = taken.map(
    ({ port, host, setting, offset, what }) => `- ${port} on ${host}, for ${what} (${offset === 0 ? setting : `${setting} + ${offset}`})`,
  );
  const settings = [...new Set(taken.map((use) => use.setting))];
  const values = await Promise.all(settings.map(async (setting) => [setting, await freeValueFor(setting, uses)] as const));
  const suggested = values.flatMap(([setting, value]) => (value === undefined ? [] : [`${setting}=${value}`]));
  const give = settings.length === 1 ? `Give ${settings[0]} a free port` : `Give ${settings.join(' and ')} free ports`;
  const advice = suggested.length === settings.length ? `${give}, e.g. ${suggested.join(' ')} ${command}` : give;
  const heading = taken.length === 1 ? 'a port it listens on is taken' : 'ports it listens on are taken';
  return new StartupError(`${command} cannot start: ${heading}:\n${lines.join('\n')}\n${advice}.`);
}

/** Refuses to start, naming every taken port and its setting, before a run starts anything. */
export async function refuseTakenPorts(uses: PortUse[], command: string): Promise<void> {
  const free = await Promise.all(uses.map((use) => isFree(use.port, use.host)));
  const taken = uses.filter((_, index) => !free[index]);
  if (taken.length > 0) throw await takenPortsError(taken, uses, command);
}
