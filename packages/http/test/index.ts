// `@fathom/http/test`: the http test harness (a real server on 127.0.0.1 over a temp data dir) and the
// fake data-tool upstreams, for the tests of other packages (the console's browser tests, bench/).
// Test-only: resolved through the `fathom-source` condition, never built or packed.
export { json, type StartOptions, startFathom, type TestFathom } from './harness';
export type * from './wire-types';
export { createFakeApify, createFakeOsm, createFakeSocial, createFakeWebsite, pollJob, resultOf } from './tools-fakes';
