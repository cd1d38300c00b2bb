import { useState } from 'react';
import { CheckField, ListField, SelectField, TextField } from './fields';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const PARAM_TYPES = ['string', 'number', 'boolean', 'array', 'object'];

/** One route of a Webhook card with its parameters; field paths tie each field to the server's errors. */
export function RouteEditor({
  index,
  route,
  onChange,
  onRemove,
}: {
  index: number;
  route: any;
  onChange(change: Record<string, unknown>): void;
  onRemove(): void;
}) {
  const n = index + 1;
  const base = `data.config.routes[${index}]`;
  const parameters: any[] = route.parameters ?? [];
  const setParameter = (position: number, change: Record<string, unknown>) =>
    onChange({ parameters: parameters.map((parameter, at) => (at === position ? { ...parameter, ...change } : parameter)) });
  const mapping = Object.entries((route.responseMapping ?? {}) as Record<string, string>)
    .map(([name, path]) => `${name} = ${path}`)
    .join('\n');
  return (
    <fieldset className="route">
      <legend>
        Route {n}: {route.name || 'unnamed'}
      </legend>
      <TextField
        label={`Route ${n} name`}
        path={`${base}.name`}
        value={route.name}
        onChange={(name) => onChange({ name })}
        hint="Becomes the tool name"
      />
      <TextField
        label={`Route ${n} description`}
        path={`${base}.description`}
        value={route.description}
        onChange={(description) => onChange({ description })}
        multiline
      />
      <TextField
        label={`Route ${n} when to use`}
        path={`${base}.whenToUse`}
        value={route.whenToUse}
        onChange={(whenToUse) => onChange({ whenToUse })}
        multiline
      />
      <SelectField
        label={`Route ${n} method`}
        path={`${base}.method`}
        value={route.method ?? 'GET'}
        options={METHODS}
        onChange={(method) => onChange({ method })}
      />
      <TextField
        label={`Route ${n} path`}
        path={`${base}.path`}
        value={route.path}
        onChange={(path) => onChange({ path })}
        hint="Joined to the base URL; {{param}} placeholders"
      />
      <CheckField
        label={`Route ${n} enabled`}
        path={`${base}.enabled`}
        checked={route.enabled !== false}
        onChange={(enabled) => onChange({ enabled })}
      />
      <TextField
        label={`Route ${n} body template`}
        path={`${base}.bodyTemplate`}
        value={route.bodyTemplate}
        onChange={(bodyTemplate) => onChange({ bodyTemplate: bodyTemplate || undefined })}
        multiline
        hint="JSON with {{placeholders}} (POST, PUT, PATCH); empty: the parameters form the body"
      />
      <TextField
        label={`Route ${n} response description`}
        path={`${base}.responseDescription`}
        value={route.responseDescription}
        onChange={(responseDescription) => onChange({ responseDescription: responseDescription || undefined })}
      />
      <MappingField n={n} path={`${base}.responseMapping`} text={mapping} onChange={(responseMapping) => onChange({ responseMapping })} />
      <ListField
        label={`Route ${n} depends on`}
        path={`${base}.dependsOn`}
        value={route.dependsOn}
        onChange={(dependsOn) => onChange({ dependsOn })}
        hint="Route names, comma-separated"
      />
      <ListField
        label={`Route ${n} triggers`}
        path={`${base}.triggers`}
        value={route.triggers}
        onChange={(triggers) => onChange({ triggers })}
        hint="Route names, comma-separated"
      />
      {parameters.map((parameter, position) => {
        const p = `${base}.parameters[${position}]`;
        const label = `Route ${n} parameter ${position + 1}`;
        return (
          <fieldset key={parameter.id ?? position} className="parameter">
            <legend>
              {label}: {parameter.name || 'unnamed'}
            </legend>
            <TextField
              label={`${label} name`}
              path={`${p}.name`}
              value={parameter.name}
              onChange={(name) => setParameter(position, { name })}
            />
            <SelectField
              label={`${label} type`}
              path={`${p}.type`}
              value={parameter.type ?? 'string'}
              options={PARAM_TYPES}
              onChange={(type) => setParameter(position, { type })}
            />
            <CheckField
              label={`${label} required`}
              path={`${p}.required`}
              checked={parameter.required !== false}
              onChange={(required) => setParameter(position, { required })}
            />
            <TextField
              label={`${label} description`}
              path={`${p}.description`}
              value={parameter.description}
              onChange={(description) => setParameter(position, { description })}
            />
            <TextField
              label={`${label} how to obtain`}
              path={`${p}.howToObtain`}
              value={parameter.howToObtain}
              onChange={(howToObtain) => setParameter(position, { howToObtain: howToObtain || undefined })}
            />
            <TextField
              label={`${label} example`}
              path={`${p}.example`}
              value={parameter.example}
              onChange={(example) => setParameter(position, { example: example || undefined })}
            />
            <TextField
              label={`${label} default value`}
              path={`${p}.defaultValue`}
              value={parameter.defaultValue}
              onChange={(defaultValue) => setParameter(position, { defaultValue: defaultValue || undefined })}
              hint="Documented only"
            />
            <ListField
              label={`${label} valid values`}
              path={`${p}.validValues`}
              value={parameter.validValues}
              onChange={(validValues) => setParameter(position, { validValues })}
              hint="Documented only, comma-separated"
            />
            <button type="button" onClick={() => onChange({ parameters: parameters.filter((_, at) => at !== position) })}>
              Remove {label.toLowerCase()}
            </button>
          </fieldset>
        );
      })}
      <div className="row">
        <button
          type="button"
          onClick={() =>
            onChange({
              parameters: [
                ...parameters,
                { id: `param-${Date.now().toString(36)}`, name: '', type: 'string', required: true, description: '' },
              ],
            })
          }
        >
          Add parameter to route {n}
        </button>
        <button type="button" onClick={onRemove}>
          Remove route {n}
        </button>
      </div>
    </fieldset>
  );
}

/** `responseMapping` as `name = $.path` lines. */
function MappingField({
  n,
  path,
  text,
  onChange,
}: {
  n: number;
  path: string;
  text: string;
  onChange(mapping: Record<string, string> | undefined): void;
}) {
  // The lines stay as typed while the field has focus; a line becomes an entry once it has a `=`.
  const [typed, setTyped] = useState<string | null>(null);
  return (
    <TextField
      label={`Route ${n} response mapping`}
      path={path}
      value={typed ?? text}
      multiline
      hint="One per line: name = $.json.path"
      onBlur={() => setTyped(null)}
      onChange={(value) => {
        setTyped(value);
        const entries = value
          .split('\n')
          .map((line) => line.split('='))
          .filter((parts) => parts.length >= 2 && parts[0]!.trim())
          .map((parts) => [parts[0]!.trim(), parts.slice(1).join('=').trim()] as const);
        onChange(entries.length > 0 ? Object.fromEntries(entries) : undefined);
      }}
    />
  );
}
