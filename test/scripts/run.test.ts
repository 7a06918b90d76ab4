import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const scripts = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;

/** A Node option that prints the pid of the Node process and ends it before the entry point loads. */
const PRINT_PID = '--import "data:text/javascript,console.log(process.pid);process.exit(0)"';

/** The pid of the process npm would start for the script (`sh -c`, as npm does), and of the Node it runs. */
function pidsOf(script: string): Promise<{ started: number | undefined; node: number }> {
  const child = spawn('sh', ['-c', `${script} ${PRINT_PID}`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', () => resolve({ started: child.pid, node: Number(output.trim()) }));
  });
}

// npm sends a SIGTERM it gets (docker stop, kill) to the process it started and no further. Under a
// `sh -c` that stays the parent (dash does), Node never got it: the shell died, Node ran on.
describe.each(['start', 'worker'])('npm run %s', (name) => {
  it('starts Node itself, so that a SIGTERM sent to npm reaches it', async () => {
    const { started, node } = await pidsOf(scripts[name]!);
    expect(node).toBe(started);
  });
});

// The sources run in Node itself, tsx loaded into it: the shell is handed over (exec), so a signal
// sent to npm reaches the process that stops the others. Not the tsx command, which relays a
// signal to the Node it starts and kills that Node (SIGKILL) when it has not said within 30 ms
// that the signal arrived: on a busy machine the demo was killed mid-stop, its last line unprinted.
describe.each(['sandbox', 'demo', 'bench', 'chaos', 'fields', 'settings'])('npm run %s', (name) => {
  it('hands its shell over to Node with tsx as its loader, not to the tsx command', () => {
    expect(scripts[name]).toMatch(/^exec node --import tsx src\//);
  });
});

describe('scripts/run.sh', () => {
  it.each([[[]], [['nosuch']]])('refuses %j in one line naming what it runs', async (args) => {
    const child = spawn('sh', ['scripts/run.sh', ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code).toBe(64);
    expect(errors).toMatch(/^scripts\/run\.sh: no compiled entry point dist\/src\/.*\.js \(usage: sh scripts\/run\.sh server\|worker/);
    expect(errors.trim()).not.toContain('\n');
  });
});
