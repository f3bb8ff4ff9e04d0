// The layer check in `npm test`: src/ has no upward import, no cycle, no component reaching into
// another, nothing but the service reaching into the devnet, no block builder reaching into the
// checker and no production code importing a testing/ folder; and each rule fires when a copy of src/
// gets one planted violation of its kind.
import { cp, mkdtemp, appendFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLayers, type LayerReport } from '../scripts/layers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('layers', () => {
  it('src/ imports only down the layers, with no cycle', async () => {
    const report = await checkLayers(ROOT);
    expect(report.modules).toBeGreaterThan(150);
    expect(report.violations).toEqual([]);
    expect(report.unlayered).toEqual([]);
  });

  describe('on a copy with planted violations', () => {
    let copy: string;
    let report: LayerReport;

    beforeAll(async () => {
      copy = await mkdtemp(path.join(os.tmpdir(), 'tonwatch-layers-test-'));
      await cp(path.join(ROOT, 'src'), path.join(copy, 'src'), { recursive: true });
      await cp(path.join(ROOT, '.dependency-cruiser.cjs'), path.join(copy, '.dependency-cruiser.cjs'));
      // upward: the store reaches the service, configuration reaches the pipeline
      await appendFile(path.join(copy, 'src/store/db.ts'), "\nimport '../service/service.js';\n");
      await appendFile(path.join(copy, 'src/config.ts'), "\nexport type { FollowerStatus } from './pipeline/status.js';\n");
      // a cycle inside one layer
      await writeFile(path.join(copy, 'src/bus/ping.ts'), "import { pong } from './pong.js';\nexport const ping = () => pong;\n");
      await writeFile(path.join(copy, 'src/bus/pong.ts'), "import type { ping } from './ping.js';\nexport const pong: typeof ping | null = null;\n");
      // a component using the devnet, and another component
      await appendFile(path.join(copy, 'src/indexer/routes.ts'), "\nimport type { DevnetChain } from '../chain/devnet/chain.js';\nexport type Leak = DevnetChain;\n");
      await appendFile(path.join(copy, 'src/invoices/model.ts'), "\nexport type { Webhooks } from '../webhooks/manager.js';\n");
      // domain code reaching for the HTTP layer (below it, but not its business)
      await appendFile(path.join(copy, 'src/bus/codec.ts'), "\nexport type { AppComponent } from '../http/app.js';\n");
      // production code using the test tooling (the lying fake), which the build leaves out
      await appendFile(path.join(copy, 'src/service/liteserver.ts'), "\nexport type { LyingModes } from '../chain/liteserver/testing/synthetic-server.js';\n");
      // inside chain/: the cell layer reaching up into decode/ and the devnet, tlb/ into liteserver/, decode/
      // into the liteserver protocol
      await appendFile(path.join(copy, 'src/chain/cell/parse.ts'), "\nexport type { DecodedBlock } from '../decode/block.js';\n");
      await appendFile(path.join(copy, 'src/chain/cell/slice.ts'), "\nexport type { DevnetChain } from '../devnet/chain.js';\n");
      await appendFile(path.join(copy, 'src/chain/tlb/block.ts'), "\nimport '../liteserver/trust/blocks.js';\n");
      await appendFile(path.join(copy, 'src/chain/decode/text.ts'), "\nimport '../liteserver/tl/codec.js';\n");
      // the block builder reaching up into the checker whose rules it shares
      await appendFile(path.join(copy, 'src/chain/blocks/shard.ts'), "\nexport type { ValidatorGroup } from '../liteserver/trust/validators.js';\n");
      report = await checkLayers(copy);
    });

    afterAll(async () => {
      if (copy) await rm(copy, { recursive: true, force: true });
    });

    it('names both files of an upward import, type-only ones included', () => {
      expect(report.violations).toContain('upward-import: src/store/db.ts → src/service/service.ts');
      expect(report.violations).toContain('upward-import: src/config.ts → src/pipeline/status.ts');
    });

    it('reports the cycle with its path', () => {
      expect(report.violations).toContain('cycle: src/bus/ping.ts → src/bus/pong.ts (cycle: src/bus/ping.ts → src/bus/pong.ts → src/bus/ping.ts)');
    });

    it('keeps domain code off the HTTP layer', () => {
      expect(report.violations).toContain('domain-to-http: src/bus/codec.ts → src/http/app.ts');
    });

    it('keeps the devnet to the service and components apart', () => {
      expect(report.violations).toContain('devnet-outside-service: src/indexer/routes.ts → src/chain/devnet/chain.ts');
      expect(report.violations).toContain('component-to-component: src/invoices/model.ts → src/webhooks/manager.ts');
    });

    it('keeps the test tooling (testing/) out of production code', () => {
      expect(report.violations).toContain('production-to-testing: src/service/liteserver.ts → src/chain/liteserver/testing/synthetic-server.ts');
    });

    it('keeps chain/ in its order: cells, TL-B, decode, the liteserver protocol, then what uses them', () => {
      expect(report.violations).toContain('chain-upward-import: src/chain/cell/parse.ts → src/chain/decode/block.ts');
      expect(report.violations).toContain('chain-upward-import: src/chain/cell/slice.ts → src/chain/devnet/chain.ts');
      expect(report.violations).toContain('devnet-outside-service: src/chain/cell/slice.ts → src/chain/devnet/chain.ts');
      expect(report.violations).toContain('chain-upward-import: src/chain/tlb/block.ts → src/chain/liteserver/trust/blocks.ts');
      expect(report.violations).toContain('chain-upward-import: src/chain/decode/text.ts → src/chain/liteserver/tl/codec.ts');
    });

    it('keeps the block builder below the checker', () => {
      expect(report.violations).toContain('builder-to-checker: src/chain/blocks/shard.ts → src/chain/liteserver/trust/validators.ts');
    });

    it('reports nothing else', () => {
      expect(report.violations.filter((v) => !/ping|pong|db\.ts|config\.ts|indexer\/routes|invoices\/model|bus\/codec|service\/liteserver|cell\/parse|cell\/slice|tlb\/block|decode\/text|blocks\/shard/.test(v))).toEqual([]);
    });
  });
});
