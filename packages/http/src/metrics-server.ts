import type { Fathom } from '@fathom/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { handleError, handleNotFound } from './errors';

/**
 * The listener of `FATHOM_METRICS_PORT`: `GET /metrics` without auth and nothing else, for a Prometheus on
 * a private network that should not hold the admin key. Its scrapes are not counted as API requests.
 */
export async function createMetricsServer(fathom: Fathom): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);
  app.get('/metrics', async (_request, reply) => {
    const text = await fathom.scrapeMetrics();
    return reply.header('content-type', fathom.metrics.contentType).send(text);
  });
  return app;
}
