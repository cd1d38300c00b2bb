import { type Static, Type } from '@sinclair/typebox';

const closed = { additionalProperties: false } as const;

/** A model `GET /v1/models` lists, as the `openai` SDK v7 types `Model`: `<vendor>/<model>`, or an alias. */
export const Model = Type.Object(
  {
    id: Type.String({ description: '`<vendor>/<model>`, or an alias of `FATHOM_MODEL_ALIASES`.' }),
    object: Type.Literal('model'),
    created: Type.Integer(),
    owned_by: Type.String({ description: 'The vendor (for an alias: the vendor of its target).' }),
    pricing: Type.Optional(
      Type.Object(
        {
          input_cost_per_token: Type.Number(),
          output_cost_per_token: Type.Number(),
          cache_read_input_token_cost: Type.Optional(Type.Number()),
          input_cost_per_token_batches: Type.Optional(Type.Number()),
          output_cost_per_token_batches: Type.Optional(Type.Number()),
          max_output_tokens: Type.Optional(Type.Integer()),
          max_input_tokens: Type.Optional(Type.Integer()),
        },
        { description: 'What Fathom charges for the model (`FATHOM_MODEL_PRICES`, currency units per token); absent = free.', ...closed },
      ),
    ),
  },
  { title: 'Model', ...closed },
);
export type Model = Static<typeof Model>;

/** `GET /v1/models`: every model of every configured vendor, then the aliases (not paginated). */
export const ModelsPage = Type.Object({ object: Type.Literal('list'), data: Type.Array(Model) }, { title: 'ModelsPage', ...closed });
export type ModelsPage = Static<typeof ModelsPage>;
