import { InvalidRequestError } from '../errors';

/**
 * What the API answers in place of a secret of a Webhook card. Sending it back unchanged (the console
 * and a GET-edit-POST client do) keeps the stored secret; any other value replaces it.
 */
export const SECRET_MASK = '********';

/** The credential field of each auth type. */
const AUTH_SECRET_FIELD: Record<string, string> = {
  bearer: 'token',
  api_key: 'apiKey',
  basic: 'password',
  custom_header: 'customHeaderValue',
};

/** Header names whose values are treated as secrets in `defaultHeaders` and route `headers`. */
const SECRET_HEADER = /authorization|token|secret|api[-_]?key|password|cookie|credential/i;

interface SecretSlot {
  /** Stable location inside one card, used to find the stored value of a masked one. */
  key: string;
  /** Path from the card's `data` (for error params). */
  path: string;
  holder: Record<string, unknown>;
  field: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every secret-bearing string of one card (`node.data`), with a location key that survives re-ordering routes. */
function secretSlots(card: unknown): SecretSlot[] {
  const slots: SecretSlot[] = [];
  if (!isObject(card) || !isObject(card.config)) return slots;
  const config = card.config;
  const auth = config.auth;
  if (isObject(auth) && typeof auth.type === 'string') {
    const field = AUTH_SECRET_FIELD[auth.type];
    if (field && typeof auth[field] === 'string') slots.push({ key: `auth.${field}`, path: `config.auth.${field}`, holder: auth, field });
  }
  const headerSlots = (headers: unknown, keyPrefix: string, pathPrefix: string) => {
    if (!isObject(headers)) return;
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value === 'string' && SECRET_HEADER.test(name)) {
        slots.push({ key: `${keyPrefix}.${name.toLowerCase()}`, path: `${pathPrefix}.${name}`, holder: headers, field: name });
      }
    }
  };
  headerSlots(config.defaultHeaders, 'defaultHeaders', 'config.defaultHeaders');
  if (Array.isArray(config.routes)) {
    config.routes.forEach((route, index) => {
      if (!isObject(route)) return;
      const routeKey = typeof route.id === 'string' && route.id ? `id:${route.id}` : `index:${index}`;
      headerSlots(route.headers, `routes[${routeKey}].headers`, `config.routes[${index}].headers`);
    });
  }
  return slots;
}

/**
 * A copy of the workflow in which every object `secretSlots` can write to is new (each card's node,
 * `data`, `config`, `auth`, header maps, routes) and everything else is shared with `workflow`: a
 * handful of objects per card instead of a deep copy of a body of up to 4 MiB.
 */
function copyCardSecrets<T>(workflow: T): T {
  if (!isObject(workflow) || !Array.isArray(workflow.nodes)) return workflow;
  const nodes = workflow.nodes.map((node: unknown) => {
    if (!isObject(node) || node.type !== 'webhook' || !isObject(node.data) || !isObject(node.data.config)) return node;
    const config = { ...node.data.config };
    if (isObject(config.auth)) config.auth = { ...config.auth };
    if (isObject(config.defaultHeaders)) config.defaultHeaders = { ...config.defaultHeaders };
    if (Array.isArray(config.routes)) {
      config.routes = config.routes.map((route: unknown) =>
        isObject(route) && isObject(route.headers) ? { ...route, headers: { ...route.headers } } : route,
      );
    }
    return { ...node, data: { ...node.data, config } };
  });
  return { ...workflow, nodes };
}

/** A copy of the workflow with every card secret replaced by `SECRET_MASK` (empty values stay empty). */
export function maskWorkflowSecrets<T>(workflow: T): T {
  const copy = copyCardSecrets(workflow);
  const nodes = isObject(copy) && Array.isArray(copy.nodes) ? copy.nodes : [];
  for (const node of nodes) {
    if (!isObject(node) || node.type !== 'webhook') continue;
    for (const slot of secretSlots(node.data)) if (slot.holder[slot.field] !== '') slot.holder[slot.field] = SECRET_MASK;
  }
  return copy;
}

/**
 * Puts the stored secrets back where an incoming workflow still carries `SECRET_MASK` (same card id,
 * same location). A mask with nothing stored behind it is refused (400 naming the field) rather than
 * saved as a literal password.
 */
export function restoreWorkflowSecrets<T>(incoming: T, stored: unknown): T {
  if (!isObject(incoming) || !Array.isArray(incoming.nodes)) return incoming;
  const copy = copyCardSecrets(incoming) as unknown as { nodes: unknown[] };
  const storedCards = new Map<string, Map<string, unknown>>();
  for (const node of isObject(stored) && Array.isArray(stored.nodes) ? stored.nodes : []) {
    if (!isObject(node) || node.type !== 'webhook' || typeof node.id !== 'string') continue;
    storedCards.set(node.id, new Map(secretSlots(node.data).map((slot) => [slot.key, slot.holder[slot.field]])));
  }
  copy.nodes.forEach((node, index) => {
    if (!isObject(node) || node.type !== 'webhook') return;
    for (const slot of secretSlots(node.data)) {
      if (slot.holder[slot.field] !== SECRET_MASK) continue;
      const previous = typeof node.id === 'string' ? storedCards.get(node.id)?.get(slot.key) : undefined;
      if (typeof previous !== 'string' || previous === SECRET_MASK) {
        throw new InvalidRequestError(
          `Webhook card '${String(node.id)}': ${slot.path} is the mask '${SECRET_MASK}' but no saved secret exists there to keep; send the secret itself.`,
          `workflow.nodes[${index}].data.${slot.path}`,
          'masked_secret_unknown',
        );
      }
      slot.holder[slot.field] = previous;
    }
  });
  return copy as T;
}
