// GET /metrics: this process's Prometheus metrics (docs/operations.md lists them).
import { defineRoute, type Route } from '../route';

/**
 * The metrics route: behind the admin key on the API port, or without auth on `FATHOM_METRICS_PORT`
 * (a listener of its own, for a private network).
 */
export function metricsRoutes(auth: 'admin' | 'none'): Route[] {
  return [
    {
      ...defineRoute({
        method: 'GET',
        path: '/metrics',
        auth,
        produces: 'text',
        summary: "This process's metrics in the Prometheus text format (admin key).",
        operationId: 'getMetrics',
        handler: async ({ fathom, reply }) => {
          const text = await fathom.scrapeMetrics();
          reply.header('content-type', fathom.metrics.contentType);
          return text;
        },
      }),
      tag: 'Meta',
      extension: true,
    },
  ];
}
