export type { EgressGuardContract, EgressRequestOptions, EgressResponse } from './types';
export { EgressGuard, type EgressGuardOptions, type EgressResolver } from './egress-guard';
export { EgressDeniedError, EgressRedirectError, EgressTimeoutError } from './egress-errors';
export { isBlockedAddress, addressRange } from './blocked-address';
