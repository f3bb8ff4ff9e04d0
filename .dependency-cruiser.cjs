// The layer check (docs/ARCHITECTURE.md, "Layers"): imports point down the layers only, never
// close a cycle, and only the service reaches into the embedded devnet. `npm test` runs it
// (test/layers.test.ts through scripts/layers.ts); tests and src/*/testing.ts are outside it.

/** Bottom to top; a module may import its own layer and the layers below it. */
const layers = [
  ['ground', '^src/errors\\.ts$'],
  ['store', '^src/store/'],
  ['config, auth', '^src/(config\\.ts$|auth/)'],
  ['http', '^src/http/'],
  ['chain', '^src/chain/'],
  ['bus', '^src/bus/'],
  ['pipeline', '^src/pipeline/'],
  // The delivery engine: built once by the service, used by webhooks and invoices.
  ['delivery', '^src/delivery/'],
  ['service', '^src/service/'],
  ['components', '^src/(streaming|webhooks|invoices|indexer|console)/'],
  ['cli', '^src/cli/'],
];

const components = ['streaming', 'webhooks', 'invoices', 'indexer', 'console'];

const upward = layers.slice(0, -1).map(([name, path], i) => ({
  name: `upward-import`,
  comment: `${name} may not import a layer above it (${layers.slice(i + 1).map(([n]) => n).join(', ')})`,
  severity: 'error',
  from: { path },
  to: { path: layers.slice(i + 1).map(([, p]) => p) },
}));

module.exports = {
  layers,
  forbidden: [
    ...upward,
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
      name: 'devnet-outside-service',
      comment: 'only the service (and the devnet itself) knows the embedded devnet; the rest uses ChainSource and the network profile',
      severity: 'error',
      from: { pathNot: '^src/(chain/devnet|service)/' },
      to: { path: '^src/chain/devnet/' },
    },
  ],
  options: {
    includeOnly: '^src/',
    exclude: { path: ['\\.test\\.ts$', '^src/[^/]+/testing\\.ts$', '/testing(-child)?\\.ts$'] },
    tsPreCompilationDeps: true,
  },
};
