import { type Static, Type } from '@sinclair/typebox';
import { OptionalNullable, StringEnum } from '../../wire';

/** Most inputs of one embeddings request (OpenAI's limit). */
export const MAX_EMBEDDING_INPUTS = 2048;

const closed = { additionalProperties: false } as const;

const TokenIds = Type.Array(Type.Integer(), { minItems: 1 });

/** `POST /v1/embeddings` as the `openai` SDK v7 types `EmbeddingCreateParams`. */
export const EmbeddingCreateParams = Type.Object(
  {
    model: Type.String({
      minLength: 1,
      description: "A `<vendor>/<model>` id of a configured vendor, an alias, or a name without '/' for Fathom's own embedder.",
    }),
    input: Type.Union(
      [
        Type.String(),
        Type.Array(Type.String(), { minItems: 1, maxItems: MAX_EMBEDDING_INPUTS }),
        TokenIds,
        Type.Array(TokenIds, { minItems: 1, maxItems: MAX_EMBEDDING_INPUTS }),
      ],
      {
        description: `A string, an array of up to ${MAX_EMBEDDING_INPUTS} strings, an array of token ids, or an array of up to ${MAX_EMBEDDING_INPUTS} token-id arrays.`,
      },
    ),
    encoding_format: OptionalNullable(StringEnum(['float', 'base64'])),
    dimensions: OptionalNullable(Type.Integer({ minimum: 1 })),
    user: OptionalNullable(Type.String()),
  },
  { title: 'EmbeddingCreateParams' },
);
export type EmbeddingCreateParams = Static<typeof EmbeddingCreateParams>;

export const Embedding = Type.Object(
  {
    object: Type.Literal('embedding'),
    index: Type.Integer(),
    embedding: Type.Union([Type.Array(Type.Number()), Type.String()], {
      description: "The vector; with `encoding_format: 'base64'` its float32 values (little-endian) in base64.",
    }),
  },
  { title: 'Embedding', ...closed },
);
export type Embedding = Static<typeof Embedding>;

export const CreateEmbeddingResponse = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(Embedding),
    model: Type.String({ description: "The model that answered: `<vendor>/<model>`, or Fathom's embedder's id." }),
    usage: Type.Object({ prompt_tokens: Type.Integer(), total_tokens: Type.Integer() }, closed),
  },
  { title: 'CreateEmbeddingResponse', ...closed },
);
export type CreateEmbeddingResponse = Static<typeof CreateEmbeddingResponse>;
