// Acceptance (issue #34), the correctness half (the 1,000-message run is `npm run bench -- overlay`): a
// `tonwatch serve` on the liteserver source with TONWATCH_OVERLAY_ADDRESS set, pointed at `tonwatch devnet
// serve`, finds the devnet's overlay member through the DHT node its global config lists, and hears every
// external message the devnet admits — small ones as simple broadcasts, large ones by RaptorQ FEC — on its
// mempool stream before the service walks the block that holds them (the lead over block production is
// measured in the bench), over real UDP on loopback. Nothing is reported pending
// that the devnet did not admit. Then a flood: garbage datagrams and forged broadcasts at ten times the
// configured rate; the service stays within its memory bound, honest broadcasts still arrive, drops are counted.
// The same pending messages feed the finality layer's pending level (docs/FINALITY.md).
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdnlNode } from '../../src/chain/overlay/adnl/node.js';
import { identity, keyId } from '../../src/chain/overlay/adnl/crypto.js';
import { DhtClient } from '../../src/chain/overlay/dht/client.js';
import { dhtNodesFromConfig } from '../../src/chain/overlay/dht/config-json.js';
import { OverlayMember } from '../../src/chain/overlay/member/member.js';
import { signedSimpleBroadcast } from '../../src/chain/overlay/member/send.js';
import { encodeExternalMessageBroadcast, encodeOverlayMessage, shardOverlayKey } from '../../src/chain/overlay/tl/overlay-types.js';
import { run as chainCommand } from '../../src/cli/commands/chain.js';
import { runCli } from '../support/cli.js';
import { BATCH_TRANSFERS, MempoolReader, PAYOUT_WALLET, sendMessages, startOverlayNetwork, type OverlayNetwork } from '../support/overlay-run.js';
import { Address, Cell, Dictionary, loadMessage } from '@ton/core';
import { until } from '../support/webhooks.js';

const RATE = 50; // TONWATCH_OVERLAY_MESSAGES_PER_SECOND of the service under test
const MEMORY_MB = 16;

describe('tonwatch serve hears the devnet\'s external messages on the overlay (real UDP on loopback)', () => {
  let net: OverlayNetwork;
  let mempool: MempoolReader;

  beforeAll(async () => {
    net = await startOverlayNetwork({ serviceEnv: { TONWATCH_OVERLAY_MESSAGES_PER_SECOND: String(RATE), TONWATCH_OVERLAY_MEMORY_MB: String(MEMORY_MB) } });
    mempool = await MempoolReader.open(net.service.url);
  }, 180_000);

  afterAll(async () => {
    mempool?.close();
    await net?.close();
  });

  it('the devnet global config lists its DHT node in TON\'s shape, and the service joined through it', async () => {
    const config = JSON.parse(net.globalConfig) as { dht: { static_nodes: { nodes: any[] } } };
    expect(config.dht.static_nodes.nodes).toHaveLength(1);
    const node = config.dht.static_nodes.nodes[0];
    expect(node).toMatchObject({ '@type': 'dht.node', id: { '@type': 'pub.ed25519' }, addr_list: { '@type': 'adnl.addressList', addrs: [{ '@type': 'adnl.address.udp' }] } });
    expect(typeof node.version).toBe('number');
    expect(Buffer.from(node.signature, 'base64')).toHaveLength(64);
    expect(dhtNodesFromConfig(config.dht)).toHaveLength(1);
    const overlay = (await net.readyz()).checks.chain.overlay;
    expect(overlay).toMatchObject({ enabled: true, address: expect.stringContaining(`127.0.0.1:${net.overlayPort}`) });
    expect(overlay.peers).toBeGreaterThanOrEqual(1);
  });

  it('every admitted message is on the mempool stream, large ones by FEC, none heard only after its block was walked; nothing else is', async () => {
    const { hashes, large, batches } = await sendMessages(net, 40, { largeEvery: 5 });
    expect(large.size).toBe(8);
    expect(batches.size).toBe(2);
    await until(async () => hashes.every((h) => mempool.seen.has(h)), 30_000, 'every message on the mempool stream').catch(async (err: Error) => {
      throw new Error(`${err.message}: ${hashes.filter((h) => !mempool.seen.has(h)).length} missing; ${JSON.stringify((await net.readyz()).checks.chain.overlay)}`);
    });
    // only what the devnet admitted
    for (const h of mempool.seen.keys()) expect(hashes).toContain(h);
    // the highload wallet's payout batches: one external of BATCH_TRANSFERS transfers each, past 768 bytes (FEC)
    const highload = (await net.devnetApi<Array<{ name: string; address: string; version: string }>>('/devnet/wallets')).find((w) => w.name === PAYOUT_WALLET)!;
    expect(highload.version).toBe('highload-v2');
    expect(BATCH_TRANSFERS).toBeGreaterThanOrEqual(40);
    for (const h of batches) {
      const boc = Buffer.from(mempool.bocs.get(h)!, 'base64');
      expect(boc.length).toBeGreaterThan(768);
      const message = loadMessage(Cell.fromBoc(boc)[0]!.beginParse());
      expect(message.info.dest!.toString()).toBe(Address.parse(highload.address).toString());
      // signature, subwallet id, query id, then the dict of (index → mode, ^transfer)
      const body = message.body.beginParse().skip(512 + 32 + 64);
      expect(body.loadDict(Dictionary.Keys.Int(16), { serialize: () => undefined, parse: (s) => s.loadUint(8) }).size).toBe(BATCH_TRANSFERS);
    }
    // their blocks come and are walked: each heard message lands, none was heard too late to publish
    await until(async () => (await net.readyz()).checks.chain.overlay.pending.landed >= hashes.length, 60_000, 'every heard message landed');
    const overlay = (await net.readyz()).checks.chain.overlay;
    expect(overlay.pending).toMatchObject({ published: hashes.length, late: 0, dropped: 0, invalid: 0 });
    expect(overlay.fec_decodes).toBeGreaterThanOrEqual(large.size);
    expect(overlay.lead_ms.p50).toBeGreaterThan(0);
    const metrics = await (await fetch(`${net.service.url}/metrics`)).text();
    expect(metrics).toMatch(/^tonwatch_overlay_peers [1-9]/m);
    expect(metrics).toMatch(new RegExp(`^tonwatch_overlay_fec_decodes_total ${overlay.fec_decodes}$`, 'm'));
    expect(metrics).toMatch(/^tonwatch_overlay_lead_seconds\{quantile="0.99"\} \d/m);
    expect(metrics).toMatch(/^tonwatch_overlay_broadcasts_total\{result="valid"\} \d+/m);
    // the finality layer's pending level is fed by the same pending messages (it subscribes to onPendingMessage)
    // (a message whose shard block the source already showed as non-final is confirmed, and its pending report ignored)
    const pendingLevel = Number(/^tonwatch_finality_events_total\{level="pending"\} (\d+)/m.exec(metrics)?.[1] ?? 0);
    const alreadyConfirmed = Number(/^tonwatch_finality_reports_ignored_total\{why="not_higher"\} (\d+)/m.exec(metrics)?.[1] ?? 0);
    expect(pendingLevel).toBeGreaterThan(0);
    expect(pendingLevel + alreadyConfirmed).toBeGreaterThanOrEqual(hashes.length);
    // tonwatch chain info says the same in words
    const { out } = await runCli(chainCommand, ['info', '--url', net.service.url]);
    expect(out).toMatch(new RegExp(`^overlay    127\\.0\\.0\\.1:${net.overlayPort} .*: [1-9]\\d* peers`, 'm'));
    expect(out).toMatch(/^ {2}broadcasts received \d+, valid \d+, duplicate \d+, dropped \d+; FEC decodes [1-9]/m);
    expect(out).toMatch(/^ {2}lead time  p50 \d+ ms, p99 \d+ ms/m);
  }, 120_000);

  it('a flood at ten times the rate with garbage datagrams: within the memory bound, honest messages still arrive, drops counted', async () => {
    // A rogue member joins the way anybody can: through the devnet's DHT node, then the service's announced address.
    const rogue = await AdnlNode.listen({});
    rogue.setPublicAddress(rogue.address);
    const zeroStateFileHash = Buffer.from(JSON.parse(net.globalConfig).validator.zero_state.file_hash, 'base64');
    const dht = new DhtClient(rogue, { staticNodes: dhtNodesFromConfig(JSON.parse(net.globalConfig).dht) });
    const member = new OverlayMember(rogue, { overlayKey: shardOverlayKey(0, -(1n << 63n), zeroStateFileHash), dht, onExternalMessage: () => {} });
    await member.join();
    // the service's node: the member whose published address is the service's overlay port
    let to: Buffer | undefined;
    for (const n of await dht.overlayNodes(shardOverlayKey(0, -(1n << 63n), zeroStateFileHash))) {
      if (n.id.kind !== 'ed25519') continue;
      const list = await dht.resolveAddress(keyId(n.id.key)).catch(() => null);
      if (list?.addrs.some((a) => a.kind === 'udp' && a.port === net.overlayPort)) to = rogue.addPeer(n.id.key, { host: '127.0.0.1', port: net.overlayPort });
    }
    expect(to, 'the service announced itself in the DHT').toBeDefined();
    const overlayId = member.overlayId;
    const pid = net.service.child.pid!;
    const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
    const baseline = rss();
    const before = (await net.readyz()).checks.chain.overlay;

    // 10× the per-neighbour rate for at least 4 s: forged broadcasts (bad signatures, data that is no message
    // BoC) and raw garbage datagrams, while the devnet broadcasts honest messages.
    const garbage = createGarbageSender(net.overlayPort);
    const forger = identity();
    const forged = Array.from({ length: RATE * 10 * 5 }, (_, i) => {
      const b = signedSimpleBroadcast(forger, encodeExternalMessageBroadcast(Buffer.from(`not a boc ${i}`)));
      return encodeOverlayMessage(overlayId, i % 2 ? { ...b, signature: Buffer.alloc(64, 7) } : b);
    });
    const started = Date.now();
    let flooded = 0;
    const flood = setInterval(() => {
      const due = Math.min(forged.length, Math.floor(((Date.now() - started) / 1000) * RATE * 10));
      for (; flooded < due; flooded++) rogue.send(to!, forged[flooded]!);
      garbage.burst(10);
    }, 20);
    const honest = await sendMessages(net, 12, { largeEvery: 4 });
    while (Date.now() - started < 4000) await new Promise((r) => setTimeout(r, 100));
    clearInterval(flood);
    const seconds = (Date.now() - started) / 1000;
    garbage.close();
    await until(async () => honest.hashes.every((h) => mempool.seen.has(h)), 30_000, 'honest messages heard during the flood').catch(async (err: Error) => {
      throw new Error(`${err.message}: ${honest.hashes.filter((h) => !mempool.seen.has(h)).length} missing; ${JSON.stringify((await net.readyz()).checks.chain.overlay)}; devnet ${JSON.stringify((await net.devnetApi('/devnet/info')).overlay ?? null)}`);
    });
    const after = (await net.readyz()).checks.chain.overlay;
    expect(flooded / seconds).toBeGreaterThanOrEqual(RATE * 10 * 0.8);
    // the neighbour's bucket refused most of the flood; what got through was refused as bad signature or not a message
    const dropped = after.broadcasts.dropped - before.broadcasts.dropped;
    // (on a loaded machine the kernel also drops datagrams the process did not read in time: those are not counted)
    expect(after.broadcasts_dropped['rate-limited']).toBeGreaterThan(0);
    expect(after.broadcasts_dropped['bad-signature']).toBeGreaterThan(0);
    expect(dropped).toBeGreaterThan(flooded / 5);
    expect((after.packets_dropped.decrypt ?? 0) + (after.packets_dropped['unknown-destination'] ?? 0) + (after.packets_dropped.size ?? 0)).toBeGreaterThan(0);
    expect(after.pending.published - before.pending.published).toBe(honest.hashes.length);
    // the process's growth during the flood stays within the overlay's configured memory bound
    expect(rss() - baseline).toBeLessThan(MEMORY_MB * 1024 * 1024 * 2);
    member.stop();
    await rogue.close();
  }, 120_000);
});

function createGarbageSender(port: number) {
  const s = createSocket('udp4');
  return {
    burst(n: number) {
      for (let i = 0; i < n; i++) s.send(randomBytes(64 + (i % 900)), port, '127.0.0.1');
    },
    close: () => s.close(),
  };
}
