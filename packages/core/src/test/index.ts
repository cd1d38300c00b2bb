// Test helpers for Fathom and for apps that embed it: fakes of our own contracts and a local HTTP server.
export { createTestServer, respond, type TestServer, type TestHandler, type RecordedRequest } from './test-server';
export {
  createFakeOpenAIUpstream,
  fakeTokenLogprob,
  type FakeTurn,
  type FakeScript,
  type FakeUpstream,
  type FakeUpstreamOptions,
} from './fake-openai-upstream';
export { createFakeAnthropicUpstream } from './fake-anthropic-upstream';
export { writeTinyModel, type TinyModelOptions } from './tiny-model';
export { seededRandom } from './seeded-random';
export { meterReads, type MeteredSqlClient } from './metered-sql-client';
export {
  startTestPostgres,
  leaseTestPostgres,
  closeTestPostgres,
  postgresForDataDir,
  releasePostgresForDataDir,
  openTestDatabase,
  sharedTestDatabase,
  testBackends,
  type TestPostgres,
  type TestBackend,
} from './postgres';
export { largestWorkflows, largestAllowed, manyRoutes, pipelineWorkflow, fanOutWorkflow, layeredWorkflow } from './large-workflows';
