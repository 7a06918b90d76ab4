import { describe, expect, it } from 'vitest';
import { documentedSettings, loadConfig, loadDatabaseConfig, loadWebConfig, loadWorkerConfig } from '../src/config.js';
import { configErrorFor, expectRefusedSaying, itRefusesEachWrongValue, VALID_ENV as validEnv } from './helpers/settings.js';

const KEY = validEnv.TOKEN_ENCRYPTION_KEY;

describe('loadConfig', () => {
  it('parses a complete environment, with defaults for the optional settings', () => {
    const config = loadConfig(validEnv);
    expect(config).toMatchObject({
      appBaseUrl: 'https://sync.example.com',
      port: 3000,
      database: { kind: 'sqlite', path: './data/app.db' },
      redis: { target: { shape: 'server', url: 'redis://127.0.0.1:6379' }, prefix: 'athlete-sync' },
      athlete: {
        baseUrl: 'https://athlete.example.com',
        clientId: 'client',
        scopes: undefined,
      },
    });
    expect(config.tokenEncryption).toEqual({ key: Buffer.alloc(32, 7), previousKeys: [] });
  });

  it('reads every optional setting when given', () => {
    const config = loadConfig({
      ...validEnv,
      PORT: '8080',
      DATABASE_URL: 'sqlite:/var/lib/app.db',
      REDIS_URL: 'redis://cache:6379/3',
      REDIS_PREFIX: 'partner-a',
      ATHLETE_SCOPES: 'nutrition:write  health:write',
      TOKEN_ENCRYPTION_PREVIOUS_KEYS: `${Buffer.alloc(32, 1).toString('base64')}, ${Buffer.alloc(32, 2).toString('base64')}`,
      METRICS_PORT: '9464',
      METRICS_HOST: '0.0.0.0',
      ADMIN_EMAILS: ' Ops@Example.com,lead@example.com ',
      ADMIN_QUEUE_ACTIONS: 'true',
    });
    expect(config.tokenEncryption.previousKeys).toEqual([Buffer.alloc(32, 1), Buffer.alloc(32, 2)]);
    expect(config.port).toBe(8080);
    expect(config.database).toEqual({ kind: 'sqlite', path: '/var/lib/app.db' });
    expect(config.redis).toEqual({ target: { shape: 'server', url: 'redis://cache:6379/3' }, prefix: 'partner-a' });
    expect(config.athlete.scopes).toEqual(['nutrition:write', 'health:write']);
    expect(config.metrics).toEqual({ port: 9464, host: '0.0.0.0' });
    expect(config.admin).toEqual({ emails: ['ops@example.com', 'lead@example.com'], queueActions: true });
  });

  it('serves no metrics, names no admins and allows no queue actions by default', () => {
    const config = loadConfig(validEnv);
    expect(config.metrics).toEqual({ port: undefined, host: '127.0.0.1' });
    expect(config.admin).toEqual({ emails: [], queueActions: false });
  });

  it.each(Object.keys(validEnv))('names %s in one line when it is missing', (variable) => {
    const env: Record<string, string> = { ...validEnv };
    delete env[variable];
    const message = configErrorFor(env);
    expect(message).toMatch(new RegExp(`^Invalid configuration: ${variable} is required: `));
    expect(message).not.toContain('\n');
  });

  it.each([
    ['APP_BASE_URL', 'not a url', 'an http(s) URL'],
    ['PORT', '70000', 'a port number'],
    ['PORT', 'eighty', 'a port number'],
    ['DATABASE_URL', 'mysql://db', 'sqlite:<path> (for example sqlite:./data/app.db) or a postgres:// URL'],
    ['REDIS_URL', 'http://cache', 'redis://'],
    ['REDIS_URL', 'redis://cache:6379/three', 'redis://'],
    ['REDIS_PREFIX', 'has space', 'letters, digits'],
    ['REDIS_PREFIX', '{unclosed', 'letters, digits'],
    ['SESSION_SECRET', 'short', 'at least 32'],
    ['SESSION_IDLE_MINUTES', '0', 'a number of minutes'],
    ['SESSION_MAX_DAYS', '1.5', 'a number of days'],
    ['TOKEN_ENCRYPTION_KEY', 'not base64!', '32 random bytes in base64'],
    ['TOKEN_ENCRYPTION_KEY', Buffer.alloc(16).toString('base64'), '32 random bytes in base64'],
    ['TOKEN_ENCRYPTION_PREVIOUS_KEYS', `${KEY},short`, '32 random bytes in base64'],
    ['ATHLETE_BASE_URL', 'http://athlete.example.com', 'must be https'],
    ['ATHLETE_SCOPES', 'nutrition:write calories:write', 'one or more of profile:read'],
    ['ATHLETE_SCOPES', ' ', 'one or more of profile:read'],
    ['SHUTDOWN_TIMEOUT_MS', '0', 'milliseconds'],
    ['TRUST_PROXY', 'true', 'the number of proxies'],
    ['TRUST_PROXY', '10.0.0.1, not-an-address', 'the number of proxies'],
    ['METRICS_PORT', '70000', 'a port number'],
    ['ADMIN_EMAILS', 'ops@example.com,ops', 'comma-separated email addresses'],
    ['ADMIN_QUEUE_ACTIONS', 'yes', 'true or false'],
  ])('refuses %s=%j saying what it expects', expectRefusedSaying);

  it('listens on 127.0.0.1 and waits 20 s at start for Redis and the database, unless told otherwise', () => {
    expect(loadConfig(validEnv)).toMatchObject({ host: '127.0.0.1', startupTimeoutS: 20 });
    expect(loadConfig({ ...validEnv, HOST: '0.0.0.0', STARTUP_TIMEOUT_S: '5' })).toMatchObject({ host: '0.0.0.0', startupTimeoutS: 5 });
  });

  it('refuses a start-up wait longer than an hour, which a timer would cut to nothing', () => {
    expect(configErrorFor({ ...validEnv, STARTUP_TIMEOUT_S: '1e9' })).toMatch(/^Invalid configuration: STARTUP_TIMEOUT_S must be [^\n]+$/);
    expect(loadConfig({ ...validEnv, STARTUP_TIMEOUT_S: '3600' })).toMatchObject({ startupTimeoutS: 3600 });
    expect(configErrorFor({ ...validEnv, SHUTDOWN_TIMEOUT_MS: '1e12' })).toMatch(
      /^Invalid configuration: SHUTDOWN_TIMEOUT_MS must be [^\n]+$/,
    );
  });

  /** A wrong value for every declared setting but the kinds' (each kind's tests try its own). */
  const WRONG_VALUES: Record<string, string> = {
    APP_BASE_URL: 'not a url',
    TRUST_PROXY: 'true',
    PORT: 'eighty',
    HOST: '',
    METRICS_PORT: '70000',
    METRICS_HOST: '',
    SHUTDOWN_TIMEOUT_MS: '0',
    STARTUP_TIMEOUT_S: 'soon',
    DATABASE_URL: 'mysql://db',
    DATABASE_POOL_SIZE: '0',
    REDIS_URL: 'http://cache',
    REDIS_CLUSTER_NODES: 'redis://cache:7000/1',
    REDIS_SENTINELS: 'http://cache:26379',
    REDIS_SENTINEL_MASTER: 'has space',
    REDIS_PREFIX: 'has space',
    SESSION_SECRET: 'short',
    SESSION_IDLE_MINUTES: '0',
    SESSION_MAX_DAYS: '1.5',
    TOKEN_ENCRYPTION_KEY: 'not base64!',
    TOKEN_ENCRYPTION_PREVIOUS_KEYS: 'short',
    ATHLETE_BASE_URL: 'http://athlete.example.com',
    ATHLETE_CLIENT_ID: '',
    ATHLETE_CLIENT_SECRET: '',
    ATHLETE_SCOPES: 'calories:write',
    ATHLETE_TOKEN_REQUEST_ENCODING: 'xml',
    ATHLETE_TIMEOUT_S: '-1',
    ATHLETE_UPLOAD_MIN_BYTES_PER_S: '1000',
    ATHLETE_RATE_LIMIT_PER_S: '0',
    ATHLETE_READ_SHARE: '0.9',
    TOKEN_REFRESH_MARGIN_S: '1.5',
    SYNC_QUIET_MS: 'soon',
    SYNC_SWEEP_INTERVAL_MS: '0',
    SYNC_ATTEMPTS: '-3',
    SYNC_FRESH_PER_PERSON_PER_MINUTE: '60001',
    WORKER_CONCURRENCY: 'many',
    WORKER_LOCK_DURATION_MS: '0',
    SIGNIN_FAILURES_PER_ADDRESS_PER_HOUR: '0',
    SIGNUPS_PER_ADDRESS_PER_HOUR: 'some',
    SESSIONS_PER_ADDRESS_PER_HOUR: '0',
    VERIFICATION_MAILS_PER_ACCOUNT_PER_HOUR: '0',
    PASSWORD_RESETS_PER_EMAIL_PER_HOUR: 'few',
    PASSWORD_RESETS_PER_ADDRESS_PER_HOUR: '-1',
    CONNECT_ATTEMPTS_PER_ACCOUNT_PER_HOUR: '1.5',
    EMAIL_VERIFICATION_LINK_HOURS: '0',
    PASSWORD_RESET_LINK_MINUTES: 'an hour',
    LOG_LEVEL: 'loud',
    ADMIN_EMAILS: 'ops',
    ADMIN_QUEUE_ACTIONS: 'yes',
    SMTP_URL: 'http://mail.example.com',
    MAIL_FROM: ' ',
    MAIL_INTERVAL_MS: '0',
  };

  itRefusesEachWrongValue(
    documentedSettings([]).map((setting) => setting.name),
    WRONG_VALUES,
  );

  it('gives a request body at least 256 KiB/s by default, or the rate set (from 1024 bytes per second)', () => {
    expect(loadConfig(validEnv).athlete.uploadMinBytesPerS).toBe(262_144);
    expect(loadConfig({ ...validEnv, ATHLETE_UPLOAD_MIN_BYTES_PER_S: '1048576' }).athlete.uploadMinBytesPerS).toBe(1_048_576);
    expect(loadConfig({ ...validEnv, ATHLETE_UPLOAD_MIN_BYTES_PER_S: '1024' }).athlete.uploadMinBytesPerS).toBe(1024);
  });

  it('gives reads a quarter of the request rate by default, or the share set', () => {
    expect(loadConfig(validEnv)).toMatchObject({ requestBudget: { ratePerS: 10, readShare: 0.25 } });
    expect(loadConfig({ ...validEnv, ATHLETE_READ_SHARE: '0.5' })).toMatchObject({ requestBudget: { readShare: 0.5 } });
  });

  it('sends 30 changes of now of each person a minute ahead of history by default, or the number set', () => {
    expect(loadConfig(validEnv).sync.freshPerPersonPerMinute).toBe(30);
    expect(loadConfig({ ...validEnv, SYNC_FRESH_PER_PERSON_PER_MINUTE: '120' }).sync.freshPerPersonPerMinute).toBe(120);
  });

  it('waits on shutdown, unless told otherwise, long enough for a request and a refresh with its one retry', () => {
    expect(loadConfig(validEnv).shutdownTimeoutMs).toBe(45_000);
    expect(loadConfig({ ...validEnv, ATHLETE_TIMEOUT_S: '5' }).shutdownTimeoutMs).toBe(15_000);
    expect(loadConfig({ ...validEnv, SHUTDOWN_TIMEOUT_MS: '2000' }).shutdownTimeoutMs).toBe(2000);
  });

  it('takes a hash-tagged REDIS_PREFIX, for Redis Cluster', () => {
    expect(loadConfig({ ...validEnv, REDIS_PREFIX: '{athlete-sync}' }).redis.prefix).toBe('{athlete-sync}');
  });

  it.each([
    [{ APP_BASE_URL: 'https://sync.example.com' }, 'loopback'],
    [{ APP_BASE_URL: 'http://localhost:3000' }, false],
    [{ TRUST_PROXY: '2' }, 2],
    [{ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7, loopback' }, ['10.0.0.0/8', '192.168.1.7', 'loopback']],
  ])('trusts the proxies TRUST_PROXY names (%j → %j)', (env, trusted) => {
    expect(loadConfig({ ...validEnv, ...env }).trustProxy).toEqual(trusted);
  });

  it.each(['http://localhost:4100', 'http://127.0.0.1:4100', 'http://[::1]:4100'])(
    'allows plain http for a sandbox on this machine: %s',
    (url) => {
      expect(loadConfig({ ...validEnv, ATHLETE_BASE_URL: url }).athlete.baseUrl).toBe(url);
    },
  );

  it('names every wrong variable once, in one line', () => {
    const message = configErrorFor({ ...validEnv, PORT: 'x', SESSION_SECRET: '', ATHLETE_CLIENT_ID: '' });
    expect(message.match(/PORT/g)).toHaveLength(1);
    expect(message).toContain('SESSION_SECRET');
    expect(message).toContain('ATHLETE_CLIENT_ID');
  });
});

describe('loadConfig naming a Redis Cluster or Redis Sentinel', () => {
  const cluster = { ...validEnv, REDIS_PREFIX: '{athlete-sync}' };

  it('takes the seed nodes of a cluster as URLs or host:port, with the credentials a URL gives every node', () => {
    const config = loadConfig({
      ...cluster,
      REDIS_CLUSTER_NODES: 'redis://ops:s%40cret@10.0.0.1:7000, 10.0.0.2:7001,redis://[fd00::3],cache-4',
    });
    expect(config.redis).toEqual({
      target: {
        shape: 'cluster',
        seeds: {
          nodes: [
            { host: '10.0.0.1', port: 7000 },
            { host: '10.0.0.2', port: 7001 },
            { host: 'fd00::3', port: 6379 },
            { host: 'cache-4', port: 6379 },
          ],
          username: 'ops',
          password: 's@cret',
        },
      },
      prefix: '{athlete-sync}',
    });
  });

  it('refuses a cluster with a REDIS_PREFIX out of braces, saying what to set', () => {
    expect(configErrorFor({ ...validEnv, REDIS_CLUSTER_NODES: 'redis://10.0.0.1:7000' })).toBe(
      'Invalid configuration: REDIS_PREFIX must be in braces with REDIS_CLUSTER_NODES, so that every key of the app is in one hash slot: REDIS_PREFIX={athlete-sync}',
    );
    expect(configErrorFor({ ...validEnv, REDIS_PREFIX: 'partner-a', REDIS_CLUSTER_NODES: '10.0.0.1:7000' })).toContain(
      'REDIS_PREFIX={partner-a}',
    );
  });

  it.each([
    ['', 'comma-separated host:port pairs or redis:// URLs of nodes of the cluster'],
    ['redis://10.0.0.1:7000,', 'comma-separated host:port pairs'],
    ['redis://10.0.0.1:7000/1', 'comma-separated host:port pairs'],
    ['http://10.0.0.1:7000', 'comma-separated host:port pairs'],
    ['10.0.0.1:70000', 'comma-separated host:port pairs'],
    ['10.0.0.1:0', 'comma-separated host:port pairs'],
    ['redis://10.0.0.1:7000?timeout=1', 'comma-separated host:port pairs'],
    ['rediss://10.0.0.1:7000', 'redis:// URLs (TLS, rediss://, is taken with REDIS_URL only)'],
    ['redis://:one@10.0.0.1:7000,redis://:two@10.0.0.2:7000', 'the same user and password'],
  ])('refuses the node list %j in one line saying what it must be', (nodes, expectation) => {
    const message = configErrorFor({ ...cluster, REDIS_CLUSTER_NODES: nodes });
    expect(message).toMatch(/^Invalid configuration: REDIS_CLUSTER_NODES must be [^\n]+$/);
    expect(message).toContain(expectation);
  });

  it('takes the sentinels, with their own credentials, and the primary by name or as a URL with its credentials and database', () => {
    const byName = loadConfig({
      ...validEnv,
      REDIS_SENTINELS: 'redis://:watch@10.0.0.1:26380,10.0.0.2',
      REDIS_SENTINEL_MASTER: 'mymaster',
    });
    expect(byName.redis.target).toEqual({
      shape: 'sentinel',
      sentinels: {
        nodes: [
          { host: '10.0.0.1', port: 26380 },
          { host: '10.0.0.2', port: 26379 },
        ],
        username: undefined,
        password: 'watch',
      },
      master: { name: 'mymaster', database: 0 },
    });
    const byUrl = loadConfig({ ...validEnv, REDIS_SENTINELS: '10.0.0.1:26379', REDIS_SENTINEL_MASTER: 'redis://app:s%40cret@My_Master/2' });
    expect(byUrl.redis.target).toMatchObject({ master: { name: 'My_Master', username: 'app', password: 's@cret', database: 2 } });
    // An unbraced prefix is fine: a Sentinel setup is one server at a time.
    expect(byUrl.redis.prefix).toBe('athlete-sync');
  });

  it.each([
    [{ REDIS_SENTINELS: '10.0.0.1:26379' }, 'REDIS_SENTINEL_MASTER is required with REDIS_SENTINELS: the name'],
    [{ REDIS_SENTINEL_MASTER: 'mymaster' }, 'REDIS_SENTINELS is required with REDIS_SENTINEL_MASTER: comma-separated'],
    [{ REDIS_SENTINELS: '10.0.0.1:26379', REDIS_SENTINEL_MASTER: 'redis://mymaster:6379' }, 'REDIS_SENTINEL_MASTER must be the name'],
    [{ REDIS_SENTINELS: '10.0.0.1:26379', REDIS_SENTINEL_MASTER: 'redis://mymaster/two' }, 'REDIS_SENTINEL_MASTER must be the name'],
    [{ REDIS_SENTINELS: 'redis://10.0.0.1:26379/0', REDIS_SENTINEL_MASTER: 'mymaster' }, 'REDIS_SENTINELS must be comma-separated'],
  ])('refuses an incomplete or malformed Sentinel setting (%j) in one line', (env, expectation) => {
    const message = configErrorFor({ ...validEnv, ...env });
    expect(message).toMatch(/^Invalid configuration: [^\n]+$/);
    expect(message).toContain(expectation);
  });

  it.each([
    [{ REDIS_URL: 'redis://cache:6379', REDIS_CLUSTER_NODES: '10.0.0.1:7000' }, 'REDIS_CLUSTER_NODES must not be set with REDIS_URL'],
    [
      { REDIS_URL: 'redis://cache:6379', REDIS_SENTINELS: '10.0.0.1:26379', REDIS_SENTINEL_MASTER: 'mymaster' },
      'REDIS_SENTINELS must not be set with REDIS_URL',
    ],
    [
      { REDIS_CLUSTER_NODES: '10.0.0.1:7000', REDIS_SENTINELS: '10.0.0.1:26379', REDIS_SENTINEL_MASTER: 'mymaster' },
      'REDIS_SENTINELS must not be set with REDIS_CLUSTER_NODES',
    ],
  ])('refuses two ways of naming Redis at once (%j)', (env, expectation) => {
    const message = configErrorFor({ ...cluster, ...env });
    expect(message).toBe(
      `Invalid configuration: ${expectation}: name one Redis: REDIS_URL (one server), REDIS_CLUSTER_NODES (a cluster) or REDIS_SENTINELS with REDIS_SENTINEL_MASTER (through Sentinel)`,
    );
  });
});

describe('loadDatabaseConfig', () => {
  it('needs no secrets, only DATABASE_URL (with its default)', () => {
    expect(loadDatabaseConfig({})).toEqual({ kind: 'sqlite', path: './data/app.db' });
    expect(loadDatabaseConfig({ DATABASE_URL: 'sqlite::memory:' })).toEqual({ kind: 'sqlite', path: ':memory:' });
  });

  it.each(['postgres', 'postgresql'])('takes a %s:// URL, with a pool of DATABASE_POOL_SIZE connections (default 10)', (scheme) => {
    const url = `${scheme}://app@db.internal:5432/sync`;
    expect(loadDatabaseConfig({ DATABASE_URL: url })).toEqual({ kind: 'postgres', url, poolSize: 10 });
    expect(loadDatabaseConfig({ DATABASE_URL: url, DATABASE_POOL_SIZE: '25' })).toEqual({ kind: 'postgres', url, poolSize: 25 });
  });

  it('refuses a pool size that is not a positive whole number', () => {
    expect(() => loadDatabaseConfig({ DATABASE_URL: 'postgres://db/sync', DATABASE_POOL_SIZE: '0' })).toThrow(
      'DATABASE_POOL_SIZE must be a number of connections',
    );
  });
});

describe('each process reads only its own settings', () => {
  it('a web process: a worker setting has no effect there, and a mistake in it does not stop it', () => {
    const config = loadWebConfig({ ...validEnv, SYNC_ATTEMPTS: 'many', MAIL_INTERVAL_MS: 'often' });
    expect(config).not.toHaveProperty('sync');
    expect(config).not.toHaveProperty('noticeMail');
    expect(config.session.idleMinutes).toBe(30);
  });

  it('a worker process: a web setting has no effect there, and it needs no SESSION_SECRET', () => {
    const { SESSION_SECRET: _secret, ...withoutSecret } = validEnv;
    const config = loadWorkerConfig({ ...withoutSecret, SESSION_IDLE_MINUTES: 'lots', SYNC_ATTEMPTS: '2' });
    expect(config).not.toHaveProperty('sessionSecret');
    expect(config).not.toHaveProperty('session');
    expect(config.sync.attempts).toBe(2);
  });

  it('each refuses a mistake in a setting it reads, or one shared with the other', () => {
    expect(() => loadWebConfig({ ...validEnv, SESSION_IDLE_MINUTES: 'lots' })).toThrow('SESSION_IDLE_MINUTES must be');
    expect(() => loadWorkerConfig({ ...validEnv, SYNC_ATTEMPTS: 'many' })).toThrow('SYNC_ATTEMPTS must be');
    for (const load of [loadWebConfig, loadWorkerConfig]) {
      expect(() => load({ ...validEnv, REDIS_URL: 'http://cache' })).toThrow('REDIS_URL must be');
      expect(() => load({ ...validEnv, SMTP_URL: 'smtp://mail.example.com' })).toThrow('MAIL_FROM is required with SMTP_URL');
    }
  });
});
