import { type Static, Type } from '@sinclair/typebox';

const closed = { additionalProperties: false } as const;

/** A model `GET /v1/models` lists, as the `openai` SDK v7 types `Model`: `<vendor>/<model>`, or an alias. */
export const Model = Type.Object(
  {
    id: Type.String({ description: '`<vendor>/<model>`, or an alias of `FATHOM_MODEL_ALIASES`.' }),
    object: Type.Literal('model'),
    created: Type.Integer(),
    owned_by: Type.String({ description: 'The vendor (for an alias: the vendor of its target).' }),
  },
  { title: 'Model', ...closed },
);
export type Model = Static<typeof Model>;

/** `GET /v1/models`: every model of every configured vendor, then the aliases (not paginated). */
export const ModelsPage = Type.Object({ object: Type.Literal('list'), data: Type.Array(Model) }, { title: 'ModelsPage', ...closed });
export type ModelsPage = Static<typeof ModelsPage>;
