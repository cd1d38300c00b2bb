import type { ToolItem } from '../types';

/** Item type of each provider-backed tool. */
const ITEM_TYPE: Record<string, string> = {
  'pronet-profile': 'person',
  'pronet-profile-detail': 'person',
  'pronet-employees': 'person',
  'pronet-company': 'company',
  'pronet-jobs': 'job',
  'leads-finder': 'lead',
  maps: 'place',
};

const VALUE_FIELDS = ['value', 'name', 'fullName', 'full_name', 'title', 'companyName', 'company_name', 'email', 'url', 'id'];

/**
 * Turns one provider record into `{type, value, ...fields}`: fields are kept with snake_case names,
 * `value` is the record's name or title. Records that are not objects become `{type, value: String(record)}`.
 */
export function normaliseItem(tool: string, record: unknown): ToolItem {
  const type = ITEM_TYPE[tool] ?? 'item';
  if (!record || typeof record !== 'object' || Array.isArray(record)) return { type, value: String(record) };
  const fields: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(record as Record<string, unknown>)) {
    fields[key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase()] = inner;
  }
  const source = record as Record<string, unknown>;
  const valueField = VALUE_FIELDS.find((name) => typeof source[name] === 'string' && source[name] !== '');
  const value = valueField ? String(source[valueField]) : JSON.stringify(record).slice(0, 200);
  return { ...fields, type: typeof source.type === 'string' ? source.type : type, value };
}
