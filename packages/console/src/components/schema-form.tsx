import type { JsonSchema } from '../api/types';

/**
 * A form generated from a JSON Schema object: one labelled control per property, chosen by type
 * (text, number, checkbox, select for enums, one-per-line text for string arrays, JSON for the rest).
 * The value is kept as the object the API receives; empty optional fields are left out.
 */
export function SchemaForm({
  schema,
  value,
  onChange,
  idPrefix,
}: {
  schema: JsonSchema;
  value: Record<string, unknown>;
  onChange(value: Record<string, unknown>): void;
  idPrefix: string;
}) {
  const properties = Object.entries(schema.properties ?? {});
  if (properties.length === 0) return <p className="empty">This tool takes no input.</p>;
  const required = new Set(schema.required ?? []);
  const set = (name: string, next: unknown) => {
    const copy = { ...value };
    if (next === undefined || next === '') delete copy[name];
    else copy[name] = next;
    onChange(copy);
  };
  return (
    <div className="grid-form">
      {properties.map(([name, property]) => (
        <SchemaField
          key={name}
          id={`${idPrefix}-${name}`}
          name={name}
          schema={property}
          required={required.has(name)}
          value={value[name]}
          onChange={(next) => set(name, next)}
        />
      ))}
    </div>
  );
}

const typeOf = (schema: JsonSchema): string => {
  const type = Array.isArray(schema.type) ? schema.type.find((entry) => entry !== 'null') : schema.type;
  return type ?? (schema.enum ? 'string' : 'object');
};

function SchemaField(props: {
  id: string;
  name: string;
  schema: JsonSchema;
  required: boolean;
  value: unknown;
  onChange(value: unknown): void;
}) {
  const { id, name, schema, required, value, onChange } = props;
  const type = typeOf(schema);
  const label = `${schema.title ?? name}${required ? ' (required)' : ''}`;
  const hint = schema.description ? <small id={`${id}-hint`}>{schema.description}</small> : null;
  const describedBy = schema.description ? `${id}-hint` : undefined;
  if (type === 'boolean') {
    return (
      <>
        <label htmlFor={id}>{label}</label>
        <span>
          <input
            id={id}
            type="checkbox"
            checked={value === true}
            aria-describedby={describedBy}
            onChange={(event) => onChange(event.target.checked)}
          />
          {hint}
        </span>
      </>
    );
  }
  let control: React.ReactNode;
  if (schema.enum) {
    control = (
      <select
        id={id}
        value={value === undefined ? '' : String(value)}
        aria-describedby={describedBy}
        onChange={(event) => onChange(event.target.value || undefined)}
      >
        <option value="">{schema.default !== undefined ? `default (${String(schema.default)})` : '—'}</option>
        {schema.enum.map((option) => (
          <option key={String(option)} value={String(option)}>
            {String(option)}
          </option>
        ))}
      </select>
    );
  } else if (type === 'number' || type === 'integer') {
    control = (
      <input
        id={id}
        type="number"
        step={type === 'integer' ? 1 : 'any'}
        min={schema.minimum}
        max={schema.maximum}
        placeholder={schema.default !== undefined ? String(schema.default) : undefined}
        value={typeof value === 'number' ? value : ''}
        aria-describedby={describedBy}
        onChange={(event) => onChange(event.target.value === '' ? undefined : Number(event.target.value))}
      />
    );
  } else if (type === 'array' && typeOf(schema.items ?? {}) === 'string') {
    control = (
      <textarea
        id={id}
        rows={3}
        placeholder="One per line"
        value={Array.isArray(value) ? value.join('\n') : ''}
        aria-describedby={describedBy}
        onChange={(event) => {
          const lines = event.target.value.split('\n');
          onChange(lines.some((line) => line.trim()) ? lines : undefined);
        }}
        onBlur={() => Array.isArray(value) && onChange(value.map((line) => String(line).trim()).filter(Boolean))}
      />
    );
  } else if (type === 'string') {
    control = (
      <input
        id={id}
        placeholder={schema.default !== undefined ? String(schema.default) : undefined}
        value={typeof value === 'string' ? value : ''}
        aria-describedby={describedBy}
        onChange={(event) => onChange(event.target.value)}
      />
    );
  } else {
    control = <JsonField id={id} value={value} onChange={onChange} describedBy={describedBy} />;
  }
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <span className="field">
        {control}
        {hint}
      </span>
    </>
  );
}

function JsonField({
  id,
  value,
  onChange,
  describedBy,
}: {
  id: string;
  value: unknown;
  onChange(value: unknown): void;
  describedBy?: string;
}) {
  return (
    <textarea
      id={id}
      rows={3}
      placeholder="JSON"
      defaultValue={value === undefined ? '' : JSON.stringify(value)}
      aria-describedby={describedBy}
      onChange={(event) => {
        const text = event.target.value.trim();
        if (!text) return onChange(undefined);
        try {
          onChange(JSON.parse(text));
        } catch {
          // Keep the last valid value while the JSON is being typed.
        }
      }}
    />
  );
}
