// Runs the layer check of .dependency-cruiser.cjs over src/ and prints each violation with the two
// files. dependency-cruiser reads TypeScript only through the `typescript` package's JS API, which
// TypeScript 7 no longer ships, so each module is first transpiled with esbuild into a mirror tree
// with its type-only imports kept as plain imports (a type import couples layers all the same).
// Usage: `npm run layers` (exit 1 on a violation); test/layers.test.ts runs it in `npm test`.
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type IViolation } from 'dependency-cruiser';
import { transform } from 'esbuild';

const require = createRequire(import.meta.url);

export interface LayerReport {
  modules: number;
  /** One line per violation: `rule: from → to` (a cycle lists its whole path). */
  violations: string[];
  /** Checked modules that belong to no layer (the rules cannot place them). */
  unlayered: string[];
}

/** Checks `<root>/src` against the rules in `<root>/.dependency-cruiser.cjs`. */
export async function checkLayers(root: string): Promise<LayerReport> {
  const config = require(path.join(root, '.dependency-cruiser.cjs')) as {
    layers: Array<[string, string]>;
    forbidden: unknown[];
    options: { includeOnly: string; exclude: { path: string[] } };
  };
  const mirror = await mkdtemp(path.join(os.tmpdir(), 'tonwatch-layers-'));
  try {
    const files = await mirrorSources(root, mirror);
    const result = await cruise(
      ['src'],
      {
        baseDir: mirror,
        validate: true,
        ruleSet: { forbidden: asMirrored(config.forbidden) } as never,
        includeOnly: config.options.includeOnly,
        exclude: { path: asMirrored(config.options.exclude.path) },
      },
      { extensions: ['.js', '.mjs', '.json'] },
    );
    const output = result.output as { modules: Array<{ source: string }>; summary: { violations: IViolation[] } };
    const original = (p: string) => files.get(p) ?? p;
    const violations = output.summary.violations.map((v) => {
      const chain = v.cycle?.length ? ` (cycle: ${[v.from, ...v.cycle.map((c) => c.name)].map(original).join(' → ')})` : '';
      return `${v.rule.name}: ${original(v.from)} → ${original(v.to)}${chain}`;
    });
    const patterns = config.layers.map(([, p]) => new RegExp(p));
    const unlayered = output.modules.map((m) => original(m.source)).filter((p) => !patterns.some((re) => re.test(p)));
    return { modules: output.modules.length, violations: [...new Set(violations)].sort(), unlayered };
  } finally {
    await rm(mirror, { recursive: true, force: true });
  }
}

/** The rules as they apply to the mirror, whose modules end in .js where the sources end in .ts. */
function asMirrored<T>(rules: T): T {
  return JSON.parse(JSON.stringify(rules).replaceAll('\\\\.ts$', '\\\\.js$')) as T;
}

/** Writes src/ as JavaScript into `mirror`; returns mirror path → original path. */
async function mirrorSources(root: string, mirror: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const entries = await readdir(path.join(root, 'src'), { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const rel = path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
    if (!/\.(ts|mjs|json)$/.test(rel) || rel.endsWith('.d.ts')) continue;
    const out = rel.replace(/\.ts$/, '.js');
    names.set(out, rel);
    const text = await readFile(path.join(root, rel), 'utf8');
    const code = rel.endsWith('.ts') ? await toJavaScript(text, rel) : text;
    await mkdir(path.dirname(path.join(mirror, out)), { recursive: true });
    await writeFile(path.join(mirror, out), code);
  }
  return names;
}

async function toJavaScript(text: string, file: string): Promise<string> {
  // Type-only imports become value imports, and `import('x').T` types a side-effect import, so
  // that esbuild (with verbatimModuleSyntax) keeps every edge the type checker sees.
  const kept = text
    .replace(/\bimport\s+type\s+(?=[{*\w])/g, 'import ')
    .replace(/\bexport\s+type\s*\{/g, 'export {')
    .replace(/([{,]\s*)type\s+(?=[\w$]+\s*(?:,|\}|\bas\b))/g, '$1');
  const typeImports = [...text.matchAll(/\bimport\(\s*(['"])([^'"]+)\1\s*\)/g)].map((m) => `import '${m[2]}';`);
  const { code } = await transform(kept, {
    loader: 'ts',
    sourcefile: file,
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
  });
  return `${code}\n${typeImports.join('\n')}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const report = await checkLayers(root);
  for (const line of report.violations) console.log(line);
  for (const file of report.unlayered) console.log(`no layer: ${file}`);
  console.log(`${report.modules} modules, ${report.violations.length} violations, ${report.unlayered.length} outside every layer`);
  process.exitCode = report.violations.length || report.unlayered.length ? 1 : 0;
}
