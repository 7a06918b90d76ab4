import { afterEach, describe, expect, it } from 'vitest';
import { connectedUser } from '../helpers/flows.js';
import { writeDay } from '../helpers/kinds.js';
import type { Running } from '../helpers/processes.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { startWorkerEntryPoint } from '../helpers/worker-process.js';

/**
 * The sync's settings are the worker's: a turn takes them from the process that runs it, whatever
 * the web process that stored the change was given.
 */

let stack: Stack;
let worker: Running | undefined;

afterEach(async () => {
  await worker?.stop('SIGTERM');
  await stack.close();
});

/** The worker's log lines for the turns it took in a lane, as JSON. */
function turnsTaken(output: string, lane: string): Array<{ next: string }> {
  return output
    .split('\n')
    .filter((line) => line.includes('"msg":"turn taken"'))
    .map((line) => JSON.parse(line) as { lane: string; next: string })
    .filter((turn) => turn.lane === lane);
}

describe('SYNC_ATTEMPTS given to the worker alone', () => {
  it('is what a change of now gets: two tries, then it waits with the history, though the web says eight', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { SYNC_ATTEMPTS: '8' } });
    const { client } = await connectedUser(stack);
    await stack.changeSandbox({ faultRate: 1, faultKinds: ['500'], faultTargets: ['data'] });
    worker = await startWorkerEntryPoint(stack, { SYNC_ATTEMPTS: '2', SYNC_QUIET_MS: '100' });

    await writeDay(client, '2026-05-04');
    await worker.waitForOutput(/"lane":"fresh","sent":0,"next":"history"/, 15_000);

    expect(turnsTaken(worker.output(), 'fresh').map((turn) => turn.next)).toEqual(['retry', 'history']);
  });
});
