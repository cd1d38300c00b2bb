import { sanitizeToolName } from './sanitize-name';
import type { CompiledWebhookTool, WebhookCard, WebhookParameter, WebhookRoute, WebhookToolCollision, WebhookToolSchema } from './types';

/** `<description> (<howToObtain>) Exemplo: <example>`, leaving out the parts that are absent. */
export function parameterDescription(parameter: WebhookParameter): string {
  let text = parameter.description ?? '';
  if (parameter.howToObtain) text += ` (${parameter.howToObtain})`;
  if (parameter.example !== undefined && parameter.example !== null && parameter.example !== '') text += ` Exemplo: ${parameter.example}`;
  return text.trim();
}

/**
 * The tool description of the spec's Tool construction table: the description, a blank line,
 * `WHEN TO USE: <whenToUse>`, a blank line, `RESPONSE: <responseDescription>` (left out when the route
 * has none), then the chaining lines `DEPENDS ON: call first: <names>` and
 * `AFTER THIS: consider calling: <names>` (names sanitized like tool names, comma-separated).
 */
export function toolDescription(route: WebhookRoute): string {
  const blocks = [route.description ?? ''];
  if (route.whenToUse) blocks.push(`WHEN TO USE: ${route.whenToUse}`);
  if (route.responseDescription) blocks.push(`RESPONSE: ${route.responseDescription}`);
  const chaining: string[] = [];
  if (route.dependsOn?.length) chaining.push(`DEPENDS ON: call first: ${route.dependsOn.map(sanitizeToolName).join(', ')}`);
  if (route.triggers?.length) chaining.push(`AFTER THIS: consider calling: ${route.triggers.map(sanitizeToolName).join(', ')}`);
  if (chaining.length) blocks.push(chaining.join('\n'));
  return blocks.join('\n\n');
}

/** The route's parameters as a JSON Schema object (`type` defaults to string, `required` to true). */
export function toolParameters(route: WebhookRoute): WebhookToolSchema {
  const schema: WebhookToolSchema = { type: 'object', properties: {}, required: [] };
  const required = new Set<string>();
  for (const parameter of route.parameters ?? []) {
    const type = parameter.type ?? 'string';
    const property: WebhookToolSchema['properties'][string] = { type, description: parameterDescription(parameter) };
    // OpenAI rejects an array schema without `items`; `{}` accepts any element.
    if (type === 'array') property.items = {};
    schema.properties[parameter.name] = property;
    if (parameter.required !== false && !required.has(parameter.name)) {
      required.add(parameter.name);
      schema.required.push(parameter.name);
    }
  }
  return schema;
}

export interface CompileResult {
  tools: CompiledWebhookTool[];
  collisions: WebhookToolCollision[];
}

/**
 * Compiles cards into tools, in order: each enabled route becomes one tool named by sanitization. A name
 * already taken (by an earlier route of any card, or by a reserved built-in name) is overwritten by the
 * later route, and the collision is reported.
 */
export function compileCards(cards: WebhookCard[], reservedNames: readonly string[] = []): CompileResult {
  const byName = new Map<string, CompiledWebhookTool>();
  const owner = new Map<string, string>();
  for (const reserved of reservedNames) owner.set(reserved, `built-in ${reserved}`);
  const collisions: WebhookToolCollision[] = [];
  for (const card of cards) {
    for (const route of card.config?.routes ?? []) {
      if (!route || route.enabled === false || !route.name) continue;
      const name = sanitizeToolName(route.name);
      const label = `${card.name}/${route.name}`;
      const previous = owner.get(name);
      if (previous !== undefined) collisions.push({ name, overwritten: previous, by: label });
      byName.delete(name);
      byName.set(name, { name, description: toolDescription(route), parameters: toolParameters(route), routeName: route.name, card });
      owner.set(name, label);
    }
  }
  return { tools: [...byName.values()], collisions };
}
