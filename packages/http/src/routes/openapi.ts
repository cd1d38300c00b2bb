// GET /v1/openapi.json: the OpenAPI document of the routes this server serves, generated from their declarations.
import { Type } from '@fathom/core';
import { openApiDocument } from '../openapi';
import { defineRoute, type Route } from '../route';

/** The version of the document (Fathom's API version). */
const API_VERSION = '0.1.0';

/** The route serving the document of `routes` (built once, on first request). */
export function openApiRoutes(routes: readonly Route[]): Route[] {
  let document: unknown;
  const self = defineRoute({
    method: 'GET',
    path: '/v1/openapi.json',
    auth: 'none',
    summary: 'The OpenAPI 3.1 document of this server.',
    operationId: 'getOpenApiDocument',
    schema: { response: Type.Object({ openapi: Type.Literal('3.1.0') }, { additionalProperties: true }) },
    handler: () => {
      document ??= openApiDocument([...routes, { ...self, tag: 'Meta', extension: true }], {
        title: 'Fathom API',
        version: API_VERSION,
        description:
          "Fathom's HTTP API: OpenAI's wire format (files, vector stores, Responses, Conversations, chat completions, embeddings, models, assistants) and Fathom's own operations (marked `x-fathom-extension`).",
      });
      return document;
    },
  });
  return [{ ...self, tag: 'Meta', extension: true }];
}
