export type { EgressGuardContract, EgressRequestOptions, EgressResponse } from './types';
export { EgressGuard, type EgressGuardOptions, type EgressResolver } from './egress-guard';
export { guardedFetch, type GuardedFetchDeps } from './guarded-fetch';
export { EgressDeniedError, EgressRedirectError, EgressTimeoutError } from './egress-errors';
export { isBlockedAddress, addressRange } from './blocked-address';
