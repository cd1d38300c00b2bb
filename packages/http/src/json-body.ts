/** Deepest nesting of arrays and objects a JSON request body may have (the top-level value is level 1). */
export const MAX_JSON_DEPTH = 128;

/**
 * True when `value` nests arrays/objects deeper than `maxDepth`. Walks with an explicit stack, so a
 * 1,000,000-deep body is measured without recursion (and stops at the first level too deep).
 */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const stack: Array<{ node: object; depth: number }> = [];
  if (value !== null && typeof value === 'object') stack.push({ node: value, depth: 1 });
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (depth > maxDepth) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (child !== null && typeof child === 'object') stack.push({ node: child, depth: depth + 1 });
    }
  }
  return false;
}
