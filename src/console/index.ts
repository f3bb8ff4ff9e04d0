// The browser console (web/, built by `npm run build` into web/dist) served at /console. It is only
// static files: every request the console makes goes to the public APIs, never to an API of its own.
// When the console is not built, /console answers a 503 that says how to build it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { ComponentFactory } from '../service/component.js';

/** web/dist, two levels above this file both from source (src/console) and built (dist/console). */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));

export const CONSOLE_PREFIX = '/console';

/** Hidden from the OpenAPI document: these are files, not API. */
const hidden = { schema: { hide: true } } as const;

// The console loads only its own scripts and styles and talks only to this origin.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export interface ConsoleOptions {
  /** The built console (index.html and assets/); default web/dist. */
  dir?: string;
}

export function isConsoleBuilt(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'index.html'));
}

export function consoleRoutes(opts: ConsoleOptions = {}) {
  const dir = opts.dir ?? DEFAULT_CONSOLE_DIR;
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get(CONSOLE_PREFIX, hidden, async (_request, reply) => reply.redirect(`${CONSOLE_PREFIX}/`, 301));

    if (!isConsoleBuilt(dir)) {
      const notBuilt = async (_request: unknown, reply: import('fastify').FastifyReply) =>
        reply.code(503).send({
          error: `the console is not built: run \`npm run build\` (or \`npx vite build web\`) in the tonwatch directory, then restart; expected ${path.join(dir, 'index.html')}`,
          error_code: 'console_not_built',
        });
      app.get(`${CONSOLE_PREFIX}/`, hidden, notBuilt);
      app.get(`${CONSOLE_PREFIX}/*`, hidden, notBuilt);
      return;
    }

    await app.register(fastifyStatic, {
      root: dir,
      prefix: `${CONSOLE_PREFIX}/`,
      schemaHide: true,
      decorateReply: false,
      index: ['index.html'],
      wildcard: false, // only the files that exist at start: a build replaces them all anyway
      setHeaders: (reply, filePath) => {
        const name = path.relative(dir, filePath);
        // Vite puts a content hash in every asset name, so assets never change; the page always may.
        reply.header('cache-control', name.startsWith(`assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
        reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
        reply.header('x-content-type-options', 'nosniff');
        reply.header('referrer-policy', 'no-referrer');
        reply.header('x-frame-options', 'DENY');
      },
    });
  };
}

/** The console component serving `opts.dir` (tests serve a build of their own). */
export function consoleComponentFor(opts: ConsoleOptions = {}): ComponentFactory {
  const dir = opts.dir ?? DEFAULT_CONSOLE_DIR;
  // Not being built is not a failure of the service: the APIs work without the console.
  return () => ({ name: 'console', routes: consoleRoutes({ dir }), health: async () => ({ ok: true, built: isConsoleBuilt(dir) }) });
}

export const consoleComponent: ComponentFactory = consoleComponentFor();
