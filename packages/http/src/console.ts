import type { FastifyInstance, FastifyReply } from 'fastify';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/**
 * Where the console's build is: copied next to the built server (`dist/console`, what the published
 * package ships), else where `npm install` (the root `prepare` script) builds it, `packages/console/dist`.
 */
export const DEFAULT_CONSOLE_DIR =
  [new URL('./console', import.meta.url), new URL('../../console/dist', import.meta.url)]
    .map((url) => fileURLToPath(url))
    .find((dir) => existsSync(join(dir, 'index.html'))) ?? fileURLToPath(new URL('../../console/dist', import.meta.url));

/**
 * The console loads only its own files and talks only to this server's `/v1`: no inline script, no
 * inline style element, no third-party origin, no framing. React sets element styles through the
 * CSSOM, which `style-src 'self'` allows.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.txt']);

interface StaticFile {
  body: Buffer;
  gzipped?: Buffer;
  type: string;
  cacheControl: string;
}

/** Every file under the build directory, keyed by its URL path below /console/. Read once at start. */
function loadFiles(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) {
        walk(path);
        continue;
      }
      const urlPath = relative(dir, path).split(sep).join('/');
      const extension = extname(name);
      const body = readFileSync(path);
      files.set(urlPath, {
        body,
        gzipped: COMPRESSIBLE.has(extension) && body.length > 1024 ? gzipSync(body) : undefined,
        type: TYPES[extension] ?? 'application/octet-stream',
        // Vite names everything under assets/ by content hash: such a URL never changes content.
        cacheControl: urlPath.startsWith('assets/')
          ? 'public, max-age=31536000, immutable'
          : urlPath === 'index.html'
            ? 'no-cache'
            : 'public, max-age=3600',
      });
    }
  };
  walk(dir);
  return files;
}

function send(reply: FastifyReply, file: StaticFile, acceptEncoding: string | undefined): FastifyReply {
  reply
    .header('content-type', file.type)
    .header('cache-control', file.cacheControl)
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .header('vary', 'accept-encoding');
  if (file.gzipped && /\bgzip\b/.test(acceptEncoding ?? '')) return reply.header('content-encoding', 'gzip').send(file.gzipped);
  return reply.send(file.body);
}

/**
 * Serves the built console at /console/ (static files only: the console signs in with an API key
 * and calls the public /v1 API like any client). `/` redirects there. Paths without a file extension
 * answer index.html, so a reload on any console URL works.
 */
export function registerConsole(app: FastifyInstance, dir: string = DEFAULT_CONSOLE_DIR): void {
  const files = existsSync(join(dir, 'index.html')) ? loadFiles(dir) : undefined;
  app.get('/', async (_request, reply) => reply.redirect('/console/', 302));
  app.get('/console', async (_request, reply) => reply.redirect('/console/', 301));
  app.get('/console/*', async (request, reply) => {
    if (!files) {
      return reply.status(503).send({
        error: {
          message: 'The console is not built. Run `npm install` (it builds it) or `npm run build -w @fathom/console`.',
          type: 'server_error',
          param: null,
          code: 'console_not_built',
        },
      });
    }
    const path = (request.params as { '*': string })['*'] ?? '';
    const file = files.get(path) ?? (extname(path) === '' ? files.get('index.html') : undefined);
    if (!file) {
      return reply.status(404).send({
        error: { message: `No console file at /console/${path}`, type: 'invalid_request_error', param: null, code: 'not_found' },
      });
    }
    return send(reply, file, request.headers['accept-encoding']);
  });
}
