import { createContext, useContext, useId, useRef, useState } from 'react';
import { SECRET_MASK, type FieldError } from './workflow-model';

/** The error placed on the node being edited, so the field it names can show it. */
export const FieldErrorContext = createContext<FieldError | undefined>(undefined);

function useFieldError(path?: string): string | undefined {
  const error = useContext(FieldErrorContext);
  if (!error || path === undefined || !error.path) return undefined;
  // A field shows an error on itself or on something inside it (e.g. `config.auth` for `config.auth.token`).
  return error.path === path || error.path.startsWith(`${path}.`) || error.path.startsWith(`${path}[`) ? error.message : undefined;
}

interface BaseProps {
  label: string;
  /** Path inside the node's JSON (`data.config.baseUrl`), to show the server's error for it. */
  path?: string;
  hint?: string;
}

function FieldFrame({
  id,
  label,
  error,
  hint,
  children,
}: {
  id: string;
  label: string;
  error?: string;
  hint?: string;
  children: React.ReactNode;
}) {
  return (
    <div className={`field-row${error ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint ? <small id={`${id}-hint`}>{hint}</small> : null}
      {error ? (
        <small id={`${id}-error`} className="field-error" role="alert">
          {error}
        </small>
      ) : null}
    </div>
  );
}

const describedBy = (id: string, hint?: string, error?: string) =>
  [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;

export function TextField(
  props: BaseProps & {
    value: string | undefined;
    onChange(value: string): void;
    onBlur?(): void;
    multiline?: boolean;
    type?: string;
    placeholder?: string;
  },
) {
  const id = useId();
  const error = useFieldError(props.path);
  const common = {
    id,
    value: props.value ?? '',
    placeholder: props.placeholder,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': describedBy(id, props.hint, error),
    onBlur: props.onBlur,
  };
  return (
    <FieldFrame id={id} label={props.label} error={error} hint={props.hint}>
      {props.multiline ? (
        <textarea {...common} rows={3} onChange={(event) => props.onChange(event.target.value)} />
      ) : (
        <input {...common} type={props.type ?? 'text'} onChange={(event) => props.onChange(event.target.value)} />
      )}
    </FieldFrame>
  );
}

export function NumberField(props: BaseProps & { value: number | undefined; onChange(value: number | undefined): void; min?: number }) {
  const id = useId();
  const error = useFieldError(props.path);
  return (
    <FieldFrame id={id} label={props.label} error={error} hint={props.hint}>
      <input
        id={id}
        type="number"
        min={props.min}
        value={props.value ?? ''}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, props.hint, error)}
        onChange={(event) => props.onChange(event.target.value === '' ? undefined : Number(event.target.value))}
      />
    </FieldFrame>
  );
}

export function CheckField(props: BaseProps & { checked: boolean; onChange(value: boolean): void }) {
  const id = useId();
  const error = useFieldError(props.path);
  return (
    <div className={`field-row check${error ? ' invalid' : ''}`}>
      <input id={id} type="checkbox" checked={props.checked} onChange={(event) => props.onChange(event.target.checked)} />
      <label htmlFor={id}>{props.label}</label>
      {error ? (
        <small className="field-error" role="alert">
          {error}
        </small>
      ) : null}
    </div>
  );
}

export function SelectField(
  props: BaseProps & { value: string; options: Array<string | [string, string]>; onChange(value: string): void },
) {
  const id = useId();
  const error = useFieldError(props.path);
  return (
    <FieldFrame id={id} label={props.label} error={error} hint={props.hint}>
      <select id={id} value={props.value} aria-invalid={error ? true : undefined} onChange={(event) => props.onChange(event.target.value)}>
        {props.options.map((option) => {
          const [value, text] = Array.isArray(option) ? option : [option, option];
          return (
            <option key={value} value={value}>
              {text}
            </option>
          );
        })}
      </select>
    </FieldFrame>
  );
}

/** A list of names edited as comma-separated text (the text is kept as typed until the field loses focus). */
export function ListField(props: BaseProps & { value: string[] | undefined; onChange(value: string[] | undefined): void }) {
  const id = useId();
  const error = useFieldError(props.path);
  const [text, setText] = useState<string | null>(null);
  return (
    <FieldFrame id={id} label={props.label} error={error} hint={props.hint}>
      <input
        id={id}
        value={text ?? (props.value ?? []).join(', ')}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, props.hint, error)}
        onChange={(event) => {
          setText(event.target.value);
          const list = event.target.value
            .split(',')
            .map((entry) => entry.trim())
            .filter(Boolean);
          props.onChange(list.length > 0 ? list : undefined);
        }}
        onBlur={() => setText(null)}
      />
    </FieldFrame>
  );
}

/**
 * A credential. A stored secret comes back from the API as the mask and is never shown: the field
 * stays empty with a "saved" note, and only a newly typed value replaces it.
 */
export function SecretField(props: BaseProps & { value: string | undefined; onChange(value: string): void }) {
  const id = useId();
  const error = useFieldError(props.path);
  const saved = props.value === SECRET_MASK;
  // Remember that a secret is stored, so clearing a half-typed replacement keeps it (sends the mask back).
  const stored = useRef(false);
  if (saved) stored.current = true;
  const hint = saved ? 'A secret is saved (hidden). Type a new value to replace it.' : props.hint;
  return (
    <FieldFrame id={id} label={props.label} error={error} hint={hint}>
      <input
        id={id}
        type="password"
        autoComplete="new-password"
        value={saved ? '' : (props.value ?? '')}
        placeholder={saved ? '•••••••• (saved)' : undefined}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
        onChange={(event) => props.onChange(event.target.value === '' && stored.current ? SECRET_MASK : event.target.value)}
      />
    </FieldFrame>
  );
}
