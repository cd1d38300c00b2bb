// Spend control: the meter that charges every model call (hold, capture, release, sweep), model prices and costs.
export { SpendMeter, modelAllowed, type SpendMeterOptions } from './model-meter';
export { costMicros, picosPerToken } from './model-costs';
export { SqlModelCallsRepository, type ModelCallsRepository, type ModelCallGroup, type UsageGroupBy } from './model-calls-repository';
export { KeyRateLimits, openAiDuration, type KeyRateLimitsOf } from './key-rate-limits';
export { KeyedWork, RUN_WITHOUT_KEY, type RunAsOrigin, type WorkOrigin } from './work-context';
export { spendSchema } from './schema';
export { SpendBatchBilling, type SpendBatchBillingOptions } from './batch-billing';
export { chargingPathOf, type ChargingPath } from './charging-path';
