// The console: a Preact app built to static files (web/dist) that tonwatch serves at /console.
// `npx vite web` runs it in development against a tonwatch at TONWATCH_URL (default :8080).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const target = process.env.TONWATCH_URL ?? 'http://127.0.0.1:8080';
const apiPrefixes = ['/api', '/webhooks', '/usage-stats', '/admin', '/devnet', '/docs', '/v2'];

export default defineConfig(({ command }) => {
  // A build is the production bundle whatever NODE_ENV the shell has (vitest sets it to `test`, which
  // would otherwise give a development bundle under other file names); Vite reads it after this file.
  if (command === 'build') process.env.NODE_ENV = 'production';
  return {
    root: fileURLToPath(new URL('.', import.meta.url)),
    base: '/console/',
    // Preact's JSX runtime through esbuild: no Babel plugin needed.
    esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
    resolve: { alias: { react: 'preact/compat', 'react-dom': 'preact/compat' } },
    build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false, reportCompressedSize: false },
    server: { proxy: Object.fromEntries(apiPrefixes.map((p) => [p, { target, changeOrigin: true }])) },
    logLevel: process.env.CI ? 'warn' : 'info',
  };
});
