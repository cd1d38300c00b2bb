/** The search benchmarks' corpus; it lives with the test helpers because the ranking test uses it too. */
export * from '../packages/core/src/test/search-corpus';
