import { InvalidRequestError } from '../errors';
import type { StartNode } from './workflow-types';

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/**
 * Checks the run variables against the start node: every required variable must be present and
 * not empty. Throws 400 `missing_variables` naming each missing one.
 */
export function checkVariables(start: StartNode, variables: Record<string, unknown>): void {
  const missing = (start.data.variables ?? [])
    .filter((variable) => variable.required === true)
    .filter((variable) => variables[variable.name] === undefined || variables[variable.name] === null || variables[variable.name] === '')
    .map((variable) => variable.name);
  if (missing.length > 0) {
    throw new InvalidRequestError(
      `Missing required variable${missing.length > 1 ? 's' : ''}: ${missing.map((name) => `'${name}'`).join(', ')}.`,
      'variables',
      'missing_variables',
    );
  }
}

/**
 * Replaces `{{name}}` with the run variable's value (strings as they are, other values as JSON).
 * A declared variable that was not given becomes empty; an unknown placeholder stays as written.
 */
export function renderVariables(text: string, variables: Record<string, unknown>, declared: ReadonlySet<string> = new Set()): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => {
    const value = variables[name];
    if (value === undefined || value === null) return declared.has(name) ? '' : whole;
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}
