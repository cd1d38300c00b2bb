export { createServer, MAX_UPLOAD_BYTES, type CreateServerOptions } from './server';
export { sendSse, encodeSse, type SseEvent } from './sse';
export { defineRoute, registerRoutes, type Route, type RouteContext, type RouteDefinition } from './route';
