// `tonwatch serve` with TONWATCH_DEVNET_LITESERVER_PORT: the devnet component starts the liteserver, says so in
// the banner, answers GET /devnet/liteserver, serves the blocks the service itself follows, and stops it on
// shutdown; a client's tcp.authentificate is answered and a message it does not know is a warning in the
// service's log naming the peer. Without the setting there is no liteserver (404 naming the setting).
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdnlClient } from '../chain/liteserver/transport/adnl.js';
import { parseGlobalConfig } from '../chain/liteserver/config.js';
import { rawAdnlSession } from '../../test/support/adnl-raw.js';
import { connectTheirClientByConfig } from '../../test/support/liteserver.js';
import { startTestService, type TestService } from '../../test/support/service.js';

let service: TestService;
let plain: TestService | undefined;
const logLines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(JSON.parse(line)) });
  service = await startTestService({ env: { TONWATCH_DEVNET_LITESERVER_PORT: '0' }, logger });
}, 60_000);
afterAll(async () => {
  await service?.stop();
  await plain?.stop();
});

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(false)));
    s.once('error', () => resolve(true));
  });

describe('the service with the devnet liteserver on', () => {
  it('answers a client that authenticates, and logs a message it does not know as a warning with the peer', async () => {
    const info = (await (await service.api('/devnet/liteserver')).json()) as { global_config: string };
    const server = parseGlobalConfig(JSON.parse(info.global_config), 'global config').liteservers[0]!;
    const ours = await AdnlClient.connect({ ...server, authenticateWith: randomBytes(32) });
    try {
      expect((await ours.query('getMasterchainInfo', {})).last.seqno).toBeGreaterThan(0);
    } finally {
      await ours.close();
    }
    const raw = await rawAdnlSession(server);
    raw.send(Buffer.from('0badc0de', 'hex'));
    await raw.closed;
    const warning = logLines.find((l) => l.component === 'devnet-liteserver' && l.level === 40);
    expect(warning).toMatchObject({ peer: expect.stringMatching(/^127\.0\.0\.1:\d+$/), msg: expect.stringContaining('ADNL: unexpected message #dec0ad0b') });
  });

  it('prints it in the banner, describes it at GET /devnet/liteserver, and serves the blocks the service follows', async () => {
    const devnet = service.components.find((c) => c.name === 'devnet')!;
    const res = await service.api('/devnet/liteserver');
    expect(res.status).toBe(200);
    const info = (await res.json()) as { host: string; port: number; public_key: string; global_config: string };
    expect(info.host).toBe('127.0.0.1');
    expect(devnet.banner!().join('\n')).toContain(`liteserver       127.0.0.1:${info.port}  public key ${info.public_key}`);
    const { client, engine } = await connectTheirClientByConfig(info.global_config);
    try {
      const seqno = await service.produceBlock();
      const head = await client.getMasterchainInfo();
      expect(head.last.seqno).toBe(seqno);
      const followed = (await service.source.getMasterchainHead());
      expect(Buffer.from(head.last.rootHash).toString('hex')).toBe(followed.rootHash);
    } finally {
      engine.close();
    }
    await service.stop();
    expect(await refused(info.port)).toBe(true);
  });

  it('is off without the setting: GET /devnet/liteserver is a 404 naming it, no banner line', async () => {
    plain = await startTestService();
    const res = await plain.api('/devnet/liteserver');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe('the devnet liteserver is off: set TONWATCH_DEVNET_LITESERVER_PORT');
    expect(plain.components.find((c) => c.name === 'devnet')!.banner!()).toEqual([]);
  });
});
