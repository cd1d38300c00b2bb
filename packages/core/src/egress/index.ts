// STUB (owner: agents helper): the real guard goes in egress-guard.ts.
export * from './types';
export class EgressGuard {
  constructor(_options: { allow: string[] }) {}
}
