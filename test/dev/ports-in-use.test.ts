import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { StartupError } from '../../src/errors.js';
import { freePort } from '../../src/dev/free-port.js';
import { refuseTakenPorts, type PortUse } from '../../src/dev/ports-in-use.js';

const held: Server[] = [];

afterEach(() => {
  for (const server of held.splice(0)) server.close();
});

async function hold(port: number): Promise<void> {
  const server = createServer().listen(port, '127.0.0.1');
  held.push(server);
  await once(server, 'listening');
}

/** The ports of a demo with one worker and METRICS_PORT set, each free now. */
async function demoUses(): Promise<PortUse[]> {
  const [web, sandbox, mailPage, metrics] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const use = (port: number, setting: string, offset: number, what: string) => ({ port, host: '127.0.0.1', setting, offset, what });
  return [
    use(web, 'PORT', 0, 'the web app'),
    use(sandbox, 'SANDBOX_PORT', 0, 'the sandbox'),
    use(metrics, 'METRICS_PORT', 0, "the web app's metrics"),
    use(metrics + 1, 'METRICS_PORT', 1, "worker 1's metrics"),
    use(mailPage, 'MAIL_PAGE_PORT', 0, 'the page of the mails the app sent'),
  ];
}

/** The refusal's message, which the entry point prints as it is, without a stack trace. */
async function refusal(uses: PortUse[]): Promise<string> {
  const error: unknown = await refuseTakenPorts(uses, 'npm run demo').then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(StartupError);
  return (error as StartupError).message;
}

describe('refuseTakenPorts', () => {
  it('lets a run start when every port it listens on is free', async () => {
    await expect(refuseTakenPorts(await demoUses(), 'npm run demo')).resolves.toBeUndefined();
  });

  it.each([
    ['PORT', 0, 'the web app (PORT)'],
    ['SANDBOX_PORT', 0, 'the sandbox (SANDBOX_PORT)'],
    ['METRICS_PORT', 0, "the web app's metrics (METRICS_PORT)"],
    ['METRICS_PORT', 1, "worker 1's metrics (METRICS_PORT + 1)"],
    ['MAIL_PAGE_PORT', 0, 'the page of the mails the app sent (MAIL_PAGE_PORT)'],
  ])('names a taken port, what would listen there and %s, with a free value for it (offset %i)', async (setting, offset, named) => {
    const uses = await demoUses();
    const { port } = uses.find((use) => use.setting === setting && use.offset === offset)!;
    await hold(port);

    const message = await refusal(uses);
    expect(message).toContain(`npm run demo cannot start: a port it listens on is taken:\n- ${port} on 127.0.0.1, for ${named}\n`);
    const [, free] = message.match(new RegExp(`Give ${setting} a free port, e\\.g\\. ${setting}=(\\d+) npm run demo\\.$`)) ?? [];
    expect(free).toBeDefined();
    const moved = uses.filter((use) => use.setting === setting).map((use) => Number(free) + use.offset);
    const others = uses.filter((use) => use.setting !== setting).map((use) => use.port);
    expect(moved).not.toContain(port);
    expect(moved.filter((candidate) => others.includes(candidate))).toEqual([]);
  });
});
