// The Responses and Conversations wire format: requests, answers and stream events, declared once.
export * from './items';
export * from './responses';
export * from './stream-events';
export * from './conversations';
