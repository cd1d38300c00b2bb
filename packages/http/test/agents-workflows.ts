import { AgentRunStreamEvent, describeSchemaIssues, type SchemaIssue, type Workflow, type WorkflowNode } from '@fathom/core';
import { answers } from '../src/validators';

/** Workflow builders shared by the agents HTTP tests. */

export interface OrdersWorkflowOptions {
  /** Base URL of the local test API. */
  baseUrl?: string;
  /** Bearer token of the card (a secret that must never reach the model or the stream). */
  token?: string;
  model?: string;
  systemPrompt?: string;
  variables?: Array<{ name: string; required: boolean }>;
}

/** start -> support agent -> end, with an "Orders API" card (bearer auth, two routes) in slot-0. */
export function ordersWorkflow(options: OrdersWorkflowOptions = {}): any {
  return {
    nodes: [
      {
        id: 'start',
        type: 'start',
        data: {
          label: 'Start',
          variables: (options.variables ?? [{ name: 'customer_name', required: true }]).map((variable) => ({
            ...variable,
            type: 'input',
            description: `The ${variable.name}`,
          })),
        },
      },
      {
        id: 'support',
        type: 'agent',
        data: {
          name: 'Support',
          model: options.model ?? 'fake/fake-model',
          system_prompt: options.systemPrompt ?? 'You help {{customer_name}} with orders.',
          config: { tools_filter: [] },
        },
      },
      {
        id: 'orders-card',
        type: 'webhook',
        data: {
          name: 'Orders API',
          config: {
            baseUrl: options.baseUrl ?? 'https://orders.example.com/api/',
            auth: { type: 'bearer', token: options.token ?? 'sk-orders-secret' },
            defaultHeaders: { 'X-Client': 'fathom-agent' },
            timeout: 5000,
            retryOnError: false,
            routes: [
              {
                id: 'r1',
                name: 'get_order',
                description: 'Fetch one order with its status and items.',
                whenToUse: 'When the customer asks where an order is.',
                method: 'GET',
                path: '/orders/{{order_id}}',
                parameters: [{ id: 'p1', name: 'order_id', type: 'string', required: true, description: 'The order id', example: 'A-100' }],
                responseDescription: 'The order as JSON.',
              },
              {
                id: 'r2',
                name: 'cancel_order',
                description: 'Cancel an order.',
                whenToUse: 'Only when the customer explicitly asks to cancel.',
                method: 'POST',
                path: '/orders/{{order_id}}/cancel',
                bodyTemplate: '{"reason": "{{reason}}"}',
                parameters: [
                  { name: 'order_id', type: 'string', required: true, description: 'The order id' },
                  { name: 'reason', type: 'string', required: true, description: 'Why the customer cancels' },
                ],
              },
            ],
          },
        },
      },
      { id: 'end', type: 'end', data: { label: 'End', status: 'success' } },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'support' },
      { id: 'e2', source: 'support', target: 'end' },
      { id: 'e3', source: 'orders-card', target: 'support', targetHandle: 'slot-0' },
    ],
  };
}

/** The first node of `type` in a workflow, typed as that kind of node; throws (failing the test) when there is none. */
export function nodeOfType<Type extends WorkflowNode['type']>(workflow: Workflow, type: Type): Extract<WorkflowNode, { type: Type }> {
  const node = workflow.nodes.find((candidate): candidate is Extract<WorkflowNode, { type: Type }> => candidate.type === type);
  if (!node) throw new Error(`the workflow has no ${type} node`);
  return node;
}

const checkEvent = answers.compile(AgentRunStreamEvent);

/**
 * Parses an agent run's SSE body into `{event, data}` items (data JSON-decoded), each checked against
 * its declaration (`AgentRunStreamEvent`, what `/v1/openapi.json` promises): an event that does not
 * match fails the test, naming the field.
 */
export function parseSse(text: string): Array<{ event: string; data: any }> {
  return text
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      const parsed = { event, data: JSON.parse(data) };
      if (!checkEvent(parsed)) {
        throw new Error(
          `The ${event} event does not match AgentRunStreamEvent: ${describeSchemaIssues(checkEvent.errors as SchemaIssue[]).message}`,
        );
      }
      return parsed;
    });
}
