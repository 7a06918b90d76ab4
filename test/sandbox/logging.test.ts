import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/sandbox/settings.js';
import { exchangeCode, obtainCode, readTokens, refreshWith, startSandbox, type RunningSandbox } from './helpers.js';

let sandbox: RunningSandbox | undefined;
afterEach(() => sandbox?.stop());

describe('request logging', () => {
  it('logs each request without codes, tokens, secrets or bodies', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = pino({ level: 'info' }, sink);
    sandbox = await startSandbox({}, logger);

    const code = await obtainCode(sandbox);
    const tokens = await readTokens(await exchangeCode(sandbox, code));
    await readTokens(await refreshWith(sandbox, tokens.refresh_token ?? ''));

    const log = lines.join('');
    expect(log).toContain('"path":"/api/oauth/token"');
    expect(log).toContain('"path":"/api/oauth/authorize"');
    for (const secret of [code.code, code.verifier, tokens.access_token, tokens.refresh_token ?? '', DEFAULT_SETTINGS.clientSecret]) {
      expect(log).not.toContain(secret);
    }
    expect(log).not.toMatch(/sbx_(at|rt|code)_|code_challenge|state-123/);
  });
});
