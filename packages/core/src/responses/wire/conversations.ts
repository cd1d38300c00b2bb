import { type Static, Type } from '@sinclair/typebox';
import { Deleted, ListPage, ListQuery, Metadata, OptionalNullable } from '../../wire';
import { ResponseInputItemParam, ResponseItem } from './items';
import { ResponseIncludable } from './responses';

/** `include` of a query string, as on the responses routes. */
const IncludeQuery = {
  'include[]': Type.Optional(Type.Array(ResponseIncludable, { description: 'Extra data in the items.' })),
  include: Type.Optional(Type.Array(ResponseIncludable, { description: "Same as 'include[]'." })),
};

/** Items added in one call at most, as OpenAI limits them. */
export const MAX_ITEMS_PER_CALL = 20;

/** Items a call adds: at most 20, as OpenAI limits them; each item's fields are read where core stores it. */
const Items = Type.Array(ResponseInputItemParam, { maxItems: MAX_ITEMS_PER_CALL });

export const ConversationCreateParams = Type.Object(
  { items: OptionalNullable(Items), metadata: OptionalNullable(Metadata) },
  { title: 'ConversationCreateParams' },
);
export type ConversationCreateParams = Static<typeof ConversationCreateParams>;

/** `metadata` replaces the conversation's (`null` clears it). */
export const ConversationUpdateParams = Type.Object(
  { metadata: Type.Union([Metadata, Type.Null()]) },
  { title: 'ConversationUpdateParams' },
);
export type ConversationUpdateParams = Static<typeof ConversationUpdateParams>;

export const Conversation = Type.Object(
  { id: Type.String(), object: Type.Literal('conversation'), created_at: Type.Integer(), metadata: Metadata },
  { additionalProperties: false, title: 'Conversation' },
);
export type Conversation = Static<typeof Conversation>;

export const ConversationDeleted = Type.Object(Deleted('conversation.deleted').properties, {
  additionalProperties: false,
  title: 'ConversationDeletedResource',
});
export type ConversationDeleted = Static<typeof ConversationDeleted>;

/** `POST /v1/conversations/{id}/items`. */
export const ConversationItemCreateParams = Type.Object({ items: Items }, { title: 'ConversationItemCreateParams' });
export type ConversationItemCreateParams = Static<typeof ConversationItemCreateParams>;

/** The query of `POST /v1/conversations/{id}/items` and `GET /v1/conversations/{id}/items/{item_id}`. */
export const ConversationItemIncludeParams = Type.Object(IncludeQuery);
export type ConversationItemIncludeParams = Static<typeof ConversationItemIncludeParams>;

export const ConversationItemListParams = ListQuery(IncludeQuery);
export type ConversationItemListParams = Static<typeof ConversationItemListParams>;

export const ConversationItem = Type.Unsafe<ResponseItem>({ ...ResponseItem, title: 'ConversationItem' });
export type ConversationItem = Static<typeof ConversationItem>;

export const ConversationItemList = ListPage(ConversationItem);
export type ConversationItemList = Static<typeof ConversationItemList>;
