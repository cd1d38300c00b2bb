import { type Static, Type } from '@sinclair/typebox';
import { WebhookAuth } from '../../webhooks/wire/webhook-card';

/**
 * The MCP card (the `data` of a workflow node of type `mcp`): an MCP server whose tools an agent node
 * sees when the card is wired to one of its `slot-N`, as a Webhook card's routes are. Declared once: the
 * routes validate workflows with it, core reads cards with its type, the console edits it. Objects stay
 * open, as the Webhook card's do.
 */

/** How large one card may be. */
export const MCP_CARD_LIMITS = {
  /** Names in `allowedTools`. */
  allowedTools: 1_000,
  /** Default per-call deadline, ms. */
  defaultTimeoutMs: 30_000,
} as const;

export const McpCardConfig = Type.Object(
  {
    serverUrl: Type.Optional(
      Type.String({
        description:
          "The MCP server's URL (Streamable HTTP, or the older HTTP+SSE transport as a fallback), reached through the egress guard (a private or loopback address needs AGENT_EGRESS_ALLOW); or the label of a server the operator declared in FATHOM_MCP_SERVERS.",
      }),
    ),
    auth: Type.Optional(WebhookAuth),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description: 'Headers of every request to the server; values of secret-looking names are masked in answers.',
      }),
    ),
    allowedTools: Type.Optional(
      Type.Array(Type.String(), {
        maxItems: MCP_CARD_LIMITS.allowedTools,
        description: "Names of the server's tools the agent may see (as the server spells them); absent = all.",
      }),
    ),
    timeout: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, description: 'Deadline of one tool call (and of listing the tools), ms; default 30000.' }),
    ),
    description: Type.Optional(Type.String({ description: 'For editors of the card; never shown to the model.' })),
  },
  { title: 'McpCardConfig' },
);
export type McpCardConfig = Static<typeof McpCardConfig>;

export const McpCard = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'Card name on the canvas; does not affect tool names.' }),
    config: McpCardConfig,
  },
  { title: 'McpCard' },
);
export type McpCard = Static<typeof McpCard>;
