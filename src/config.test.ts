import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { README, withConfigTable } from '../scripts/config-table.js';
import { ConfigError, configTableMarkdown, formatConfig, loadConfig, loadConfigDetailed, settings, storeOptions } from './config.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tonwatch-config-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function writeJson(name: string, content: unknown): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('gives the documented defaults with an empty environment', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      dataDir: './data',
      databaseUrl: undefined,
      adminKey: undefined,
      chain: 'devnet',
      network: 'mainnet',
      trust: 'secure',
      liteserverMaxLagBlocks: 30,
      blockIntervalMs: 1000,
      eventRetentionSeconds: 3600,
      bodyLimitBytes: 1024 * 1024,
      corsOrigins: ['*'],
      logLevel: 'info',
      trustProxy: false,
      streamAnonLimit: 5,
      wsMaxAccounts: 1000,
      webhookAllowLoopback: true,
      webhookTimeoutMs: 15000,
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('sizes the worker lease from the attempt timeout and refuses one too short for it', () => {
    expect(loadConfig({}).workerLeaseSeconds).toBe(60);
    expect(loadConfig({ TONWATCH_WEBHOOK_TIMEOUT_MS: '30000' }).workerLeaseSeconds).toBe(91);
    expect(loadConfig({ TONWATCH_WORKER_LEASE_SECONDS: '5', TONWATCH_WEBHOOK_TIMEOUT_MS: '1000' }).workerLeaseSeconds).toBe(5);
    const err = errorOf(() => loadConfig({ TONWATCH_WORKER_LEASE_SECONDS: '30' }));
    expect(err.problems).toEqual([{ setting: 'TONWATCH_WORKER_LEASE_SECONDS', message: expect.stringMatching(/at least 3 × TONWATCH_WEBHOOK_TIMEOUT_MS \+ 1 s = 46 s.*got 30/) }]);
  });

  it('reads and converts environment variables', () => {
    const c = loadConfig({
      PORT: '9001',
      TONWATCH_CHAIN: 'LiteServer',
      TONWATCH_NETWORK: 'testnet',
      TONWATCH_LITESERVER_CONFIG: 'https://example.com/global.config.json',
      TONWATCH_TRUST: 'Fast',
      TONWATCH_LITESERVER_MAX_LAG_BLOCKS: '12',
      TONWATCH_LITESERVER_RECORD: '/tmp/session.jsonl',
      TONWATCH_START_SEQNO: '43792209',
      TONWATCH_CORS_ORIGINS: 'https://a.example.com, http://localhost:5173',
      TONWATCH_TRUST_PROXY: 'yes',
      DATABASE_URL: 'postgres://u:secret@db:5432/tw',
      TONWATCH_STREAM_ANON_LIMIT: '0',
      LOG_LEVEL: 'debug',
    });
    expect(c.port).toBe(9001);
    expect(c.chain).toBe('liteserver');
    expect(c.network).toBe('testnet');
    expect(c).toMatchObject({ liteserverConfig: 'https://example.com/global.config.json', trust: 'fast', liteserverMaxLagBlocks: 12, liteserverRecord: '/tmp/session.jsonl', startSeqno: 43792209 });
    expect(c.corsOrigins).toEqual(['https://a.example.com', 'http://localhost:5173']);
    expect(c.trustProxy).toBe(true);
    expect(c.streamAnonLimit).toBe(0);
    // The loopback default follows the chain: off away from the devnet.
    expect(c.webhookAllowLoopback).toBe(false);
    expect(storeOptions(c)).toEqual({ databaseUrl: 'postgres://u:secret@db:5432/tw' });
    expect(loadConfig({ TONWATCH_CORS_ORIGINS: 'none' }).corsOrigins).toEqual([]);
  });

  it('treats empty variables as unset and puts SQLite in the data dir', () => {
    const c = loadConfig({ PORT: '', TONWATCH_DATA_DIR: '/var/lib/tw', DATABASE_URL: '  ' });
    expect(c.port).toBe(8080);
    expect(storeOptions(c)).toEqual({ sqlitePath: path.join('/var/lib/tw', 'tonwatch.sqlite') });
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT: must be an integer from 0 to 65535, got "abc"'],
    [{ PORT: '70000' }, 'PORT: must be an integer from 0 to 65535, got "70000"'],
    [{ PORT: '80.5' }, 'PORT: must be an integer from 0 to 65535'],
    [{ TONWATCH_CHAIN: 'mainnet' }, 'TONWATCH_CHAIN: must be one of devnet, replay, liteserver, got "mainnet"'],
    [{ TONWATCH_TRUST: 'paranoid' }, 'TONWATCH_TRUST: must be one of secure, fast, got "paranoid"'],
    [{ TONWATCH_START_SEQNO: '0' }, 'TONWATCH_START_SEQNO: must be an integer ≥ 1, got "0"'],
    [{ TONWATCH_START_SEQNO: 'head' }, 'TONWATCH_START_SEQNO: must be an integer ≥ 1, got "head"'],
    [{ TONWATCH_BLOCK_INTERVAL_MS: '50' }, 'TONWATCH_BLOCK_INTERVAL_MS: must be an integer from 100 to 60000, got "50"'],
    [{ TONWATCH_EVENT_RETENTION_SECONDS: '59' }, 'TONWATCH_EVENT_RETENTION_SECONDS: must be an integer from 60'],
    [{ TONWATCH_WEBHOOK_ALLOW_LOOPBACK: 'maybe' }, 'TONWATCH_WEBHOOK_ALLOW_LOOPBACK: must be true or false'],
    [{ TONWATCH_CORS_ORIGINS: 'example.com' }, 'TONWATCH_CORS_ORIGINS: must be "*", "none", or a comma-separated list of origins'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent, got "loud"'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL: must be a postgres:// or postgresql:// URL'],
  ])('rejects %j naming the setting', (env, message) => {
    const err = errorOf(() => loadConfig(env));
    expect(err.message).toContain(message);
    expect(err.problems[0]!.setting).toBe(Object.keys(env)[0]);
  });

  it('never echoes a secret value in an error', () => {
    const err = errorOf(() => loadConfig({ TONWATCH_ADMIN_KEY: 'short key', DATABASE_URL: 'mysql://root:hunter2@db' }));
    expect(err.problems.map((p) => p.setting)).toEqual(['DATABASE_URL', 'TONWATCH_ADMIN_KEY']);
    expect(err.message).not.toContain('hunter2');
    expect(err.message).not.toContain('short key');
    expect(err.message).toContain('TONWATCH_ADMIN_KEY: must be at least 16 characters without spaces, got a value of 9 characters');
  });

  it('reports every wrong setting at once', () => {
    const err = errorOf(() => loadConfig({ PORT: 'x', TONWATCH_WS_MAX_ACCOUNTS: '0' }));
    expect(err.problems.map((p) => p.setting)).toEqual(['PORT', 'TONWATCH_WS_MAX_ACCOUNTS']);
  });
});

describe('cluster settings', () => {
  it('holds every role by default and reads a subset in role order', () => {
    expect(loadConfig({}).roles).toEqual(['follower', 'api', 'worker']);
    expect(loadConfig({}).cluster).toBe(false);
    const c = loadConfig({ TONWATCH_ROLES: ' Worker,api ', TONWATCH_CLUSTER: 'true', DATABASE_URL: 'postgres://db/tw', TONWATCH_CHAIN: 'replay' });
    expect(c.roles).toEqual(['api', 'worker']);
    expect(c.cluster).toBe(true);
  });

  it('refuses unknown roles, a cluster on SQLite and a subset of roles outside a cluster, naming the setting', () => {
    expect(errorOf(() => loadConfig({ TONWATCH_ROLES: 'api,indexer' })).problems).toEqual([
      { setting: 'TONWATCH_ROLES', message: 'TONWATCH_ROLES: must be a comma-separated list of follower, api, worker, got "api,indexer"' },
    ]);
    expect(errorOf(() => loadConfig({ TONWATCH_CLUSTER: '1' })).problems[0]!.message).toMatch(/^TONWATCH_CLUSTER: a cluster needs PostgreSQL \(set DATABASE_URL\)/);
    expect(errorOf(() => loadConfig({ TONWATCH_ROLES: 'api', DATABASE_URL: 'postgres://db/tw' })).problems[0]!.message).toMatch(/^TONWATCH_ROLES: .*set TONWATCH_CLUSTER=true/);
    expect(errorOf(() => loadConfig({ TONWATCH_CLUSTER: 'true', DATABASE_URL: 'postgres://db/tw' })).problems[0]!.message).toMatch(/^TONWATCH_CLUSTER: the embedded devnet is one process's own chain/);
  });
});

describe('config file', () => {
  it('reads a JSON file named by TONWATCH_CONFIG; environment variables win', () => {
    const file = writeJson('ok.json', {
      PORT: 9100,
      HOST: '127.0.0.1',
      webhookTimeoutMs: 2000,
      TONWATCH_CORS_ORIGINS: ['https://a.example.com'],
      TONWATCH_TRUST_PROXY: true,
    });
    const { config, sources } = loadConfigDetailed({ TONWATCH_CONFIG: file, HOST: '::1' });
    expect(config.port).toBe(9100);
    expect(config.host).toBe('::1');
    expect(config.webhookTimeoutMs).toBe(2000);
    expect(config.corsOrigins).toEqual(['https://a.example.com']);
    expect(config.trustProxy).toBe(true);
    expect(sources).toMatchObject({ port: 'file', host: 'env', logLevel: 'default' });
    expect(loadConfig({}, { file }).port).toBe(9100);
  });

  it('names the file and the setting when a value in it is wrong', () => {
    const file = writeJson('bad.json', { PORT: -1, TONWATCH_CHAIN: { kind: 'devnet' } });
    const err = errorOf(() => loadConfig({ TONWATCH_CONFIG: file }));
    expect(err.message).toContain(`PORT (in ${file}): must be an integer from 0 to 65535, got "-1"`);
    expect(err.message).toContain(`TONWATCH_CHAIN (in ${file}): must be one of devnet, replay, liteserver`);
  });

  it('rejects unknown keys, invalid JSON, non-objects and missing files', () => {
    expect(errorOf(() => loadConfig({ TONWATCH_CONFIG: writeJson('u.json', { PROT: 1 }) })).message).toContain('TONWATCH_CONFIG: unknown setting "PROT"');
    expect(errorOf(() => loadConfig({ TONWATCH_CONFIG: writeJson('j.json', '{"PORT": ') })).message).toMatch(/TONWATCH_CONFIG: .*j\.json is not valid JSON/);
    expect(errorOf(() => loadConfig({ TONWATCH_CONFIG: writeJson('a.json', [1]) })).message).toContain('must hold a JSON object');
    expect(errorOf(() => loadConfig({ TONWATCH_CONFIG: path.join(tmp, 'missing.json') })).message).toMatch(/TONWATCH_CONFIG: cannot read .*missing\.json: ENOENT/);
  });
});

describe('config docs', () => {
  it('the dump lists every setting and hides secrets', () => {
    const { config, sources } = loadConfigDetailed({ TONWATCH_ADMIN_KEY: 'tw_0123456789abcdef', DATABASE_URL: 'postgres://tw:hunter2@db/tw' });
    const dump = formatConfig(config, sources);
    for (const s of Object.values(settings)) expect(dump).toContain(s.env);
    expect(dump).not.toContain('hunter2');
    expect(dump).not.toContain('tw_0123456789abcdef');
    expect(dump).toMatch(/DATABASE_URL\s+= postgres:\/\/tw:\*\*\*@db\/tw {2}\(env\)/);
    expect(dump).toMatch(/PORT\s+= 8080 {2}\(default\)/);
  });

  it('the README configuration table is the one generated from the settings table', () => {
    const readme = fs.readFileSync(README, 'utf8');
    expect(withConfigTable(readme), 'run: npx tsx scripts/config-table.ts').toBe(readme);
    for (const s of Object.values(settings)) expect(configTableMarkdown()).toContain(`| \`${s.env}\` |`);
  });
});
