import multipart from '@fastify/multipart';
import type { Fathom } from '@fathom/core';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { registerConsole } from './console';
import { handleError, handleNotFound } from './errors';
import { registerRoutes } from './route';
import { accountRoutes } from './routes/account';
import { adminRoutes } from './routes/admin';
import { agentsRoutes } from './routes/agents';
import { assistantsRoutes } from './routes/assistants';
import { documentsRoutes } from './routes/documents';
import { modelsRoutes } from './routes/models';
import { searchRoutes } from './routes/search';
import { toolsRoutes } from './routes/tools';

/** Largest upload `POST /v1/files` accepts (spec: 25 MB). */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

export interface CreateServerOptions {
  /** `platform`: everything but agents; `agents`: the agent service; `all` (default): both on one port. */
  surface?: 'all' | 'platform' | 'agents';
  /** Fastify logger option; default off (the CLI turns it on). */
  logger?: FastifyServerOptions['logger'];
  /** Build directory of the console served at /console/; default `packages/console/dist`; false = no console. */
  consoleDir?: string | false;
}

/** Builds the HTTP server over a Fathom instance. Routes only parse, authenticate, call core, serialize. */
export async function createServer(fathom: Fathom, options: CreateServerOptions = {}): Promise<FastifyInstance> {
  const surface = options.surface ?? 'all';
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: 32 * 1024 * 1024,
    ajv: { customOptions: { allErrors: true, coerceTypes: false, removeAdditional: false, useDefaults: true } },
    forceCloseConnections: true,
  });
  // An empty body sent as application/json (common for DELETE and bodiless POSTs such as cancel) means no body.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if ((body as string).trim() === '') return done(null, undefined);
    parseJson(request, body as string, done);
  });
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);
  // Busboy truncates an oversized file and flags it; the files route checks the flag and answers 413.
  await app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10 } });

  const routes = [
    ...accountRoutes,
    ...(surface !== 'agents'
      ? [...adminRoutes, ...documentsRoutes, ...searchRoutes, ...modelsRoutes, ...assistantsRoutes, ...toolsRoutes]
      : []),
    ...(surface !== 'platform' ? agentsRoutes : []),
  ];
  registerRoutes(app, fathom, routes);
  app.get('/health', async () => ({ status: 'ok' }));
  if (surface !== 'agents' && options.consoleDir !== false) registerConsole(app, options.consoleDir);
  return app;
}
