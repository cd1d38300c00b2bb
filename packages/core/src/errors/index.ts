export { FathomError, type FathomErrorOptions } from './fathom-error';
export * from './errors';
export { describeSchemaIssue, describeSchemaIssues, issueField, type SchemaIssue } from './describe-schema-issues';
