// Test child process (restart.test.ts): runs an existing devnet with the block timer while sending
// transfers, and prints `head <seqno>` after each committed block, until it is killed.
import { toNano } from '@ton/core';
import { startDevnet } from '../../src/chain/devnet/index.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: devnet-child.ts <dataDir>');
const devnet = await startDevnet({ dataDir, blockIntervalMs: 100 });
devnet.chain.onMasterchainHead((seqno) => process.stdout.write(`head ${seqno}\n`));
const names = ['alice', 'bob', 'carol', 'dave'];
for (let i = 0; ; i++) {
  const from = names[i % names.length]!;
  const to = names[(i + 1) % names.length]!;
  await devnet.control.send({ from, to, amount: toNano('0.01'), comment: `load ${i}` });
  if (i % 4 === 3) await devnet.control.jettonSend({ from, jetton: 'usdt', to, amount: 1000n });
  await new Promise((resolve) => setTimeout(resolve, 5));
}
