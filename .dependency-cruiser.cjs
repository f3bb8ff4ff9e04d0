// The layer check (docs/ARCHITECTURE.md, "Layers"): imports point down the layers only, never
// close a cycle, only the service reaches into the embedded devnet, and nothing but tests and test
// tooling imports a testing/ folder (the build leaves those out). `npm test` runs it
// (test/layers.test.ts through scripts/layers.ts); tests (*.test.ts, test/) are outside it.

/**
 * Bottom to top; a module may import its own layer and the layers below it. A module belongs to
 * the first layer whose pattern it matches.
 */
const layers = [
  // The chain's vocabulary and value parsers, free of imports above them: configuration parses
  // addresses with them.
  ['ground', '^src/(errors\\.ts$|chain/(model|address|hash)\\.ts$)'],
  ['store', '^src/store/'],
  ['config, auth', '^src/(config\\.ts$|config/|auth/)'],
  ['http', '^src/http/'],
  ['chain', '^src/chain/'],
  ['bus', '^src/bus/'],
  ['pipeline', '^src/pipeline/'],
  // The delivery engine: built once by the service, used by webhooks and invoices.
  ['delivery', '^src/delivery/'],
  ['service', '^src/service/'],
  ['components', '^src/(streaming|webhooks|invoices|indexer|console)/'],
  // The composition root (the component list) and the command line.
  ['root, cli', '^src/(components\\.ts$|cli/)'],
];

/**
 * Inside the chain layer, bottom to top (docs/ARCHITECTURE.md, "Inside chain/"): cells, TL-B readers,
 * interpretation into the chain model, the liteserver protocol (TL, transport), then the liteserver source
 * and its trust checks beside the block builder, then the devnet and replay. Other chain/ modules (the
 * model, addresses, the ChainSource contract) stand outside this order.
 */
const chainLayers = [
  ['chain/cell', '^src/chain/cell/'],
  ['chain/tlb', '^src/chain/tlb/'],
  ['chain/decode', '^src/chain/decode/'],
  ['liteserver protocol', '^src/chain/liteserver/(tl|transport)/'],
  // The node's validator rules, shared by the block builder (which signs by them) and the trust checks.
  ['chain/validators', '^src/chain/validators/'],
  ['liteserver source and trust, blocks', '^src/chain/(liteserver|blocks)/'],
  ['devnet, replay', '^src/chain/(devnet|replay)/'],
];

const components = ['streaming', 'webhooks', 'invoices', 'indexer', 'console'];

const patterns = layers.map(([, p]) => p);
const upward = layers.slice(0, -1).map(([name, path], i) => ({
  name: `upward-import`,
  comment: `${name} may not import a layer above it (${layers.slice(i + 1).map(([n]) => n).join(', ')})`,
  severity: 'error',
  from: { path, ...(i > 0 ? { pathNot: patterns.slice(0, i) } : {}) },
  to: { path: patterns.slice(i + 1), pathNot: patterns.slice(0, i + 1) },
}));

const chainPatterns = chainLayers.map(([, p]) => p);
const chainUpward = chainLayers.slice(0, -1).map(([name, path], i) => ({
  name: 'chain-upward-import',
  comment: `${name} may not import a part of chain/ above it (${chainLayers.slice(i + 1).map(([n]) => n).join(', ')})`,
  severity: 'error',
  from: { path, ...(i > 0 ? { pathNot: chainPatterns.slice(0, i) } : {}) },
  to: { path: chainPatterns.slice(i + 1), pathNot: chainPatterns.slice(0, i + 1) },
}));

module.exports = {
  layers,
  chainLayers,
  forbidden: [
    ...upward,
    ...chainUpward,
    {
      name: 'cycle',
      comment: 'an import that closes a cycle',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'component-to-component',
      comment: 'components talk through the event log and the store, never through each other',
      severity: 'error',
      from: { path: `^src/(${components.join('|')})/` },
      to: { path: `^src/(${components.join('|')})/`, pathNot: '^src/$1/' },
    },
    {
      name: 'domain-to-http',
      comment: 'the chain, the log and the components throw the ground-level errors (src/errors.ts); only the service builds the HTTP app',
      severity: 'error',
      from: { path: '^src/(chain|bus|pipeline|delivery|streaming|webhooks|invoices|indexer|console)/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'builder-to-checker',
      comment: 'the block builder (chain/blocks) stands beside the liteserver source and its checks, not on them: of chain/liteserver it uses the protocol (tl/, transport/) only, and the validator rules it shares with the checker come from chain/validators',
      severity: 'error',
      from: { path: '^src/chain/blocks/' },
      to: { path: '^src/chain/liteserver/', pathNot: '^src/chain/liteserver/(tl|transport)/' },
    },
    {
      name: 'production-to-testing',
      comment: 'the test tooling (a testing/ folder: the lying fake liteserver, test keys) is left out of the build; only tests and other test tooling import it',
      severity: 'error',
      from: { pathNot: '/testing/' },
      to: { path: '/testing/' },
    },
    {
      name: 'devnet-outside-service',
      comment: 'only the service (and the devnet itself) knows the embedded devnet; the rest uses ChainSource and the network profile',
      severity: 'error',
      from: { pathNot: '^src/(chain/devnet|service)/' },
      to: { path: '^src/chain/devnet/' },
    },
  ],
  options: {
    includeOnly: '^src/',
    exclude: { path: ['\\.test\\.ts$'] },
    tsPreCompilationDeps: true,
  },
};
