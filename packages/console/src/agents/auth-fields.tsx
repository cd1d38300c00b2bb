import { SecretField, SelectField, TextField } from './fields';

const AUTH_TYPES: Array<[string, string]> = [
  ['none', 'None'],
  ['bearer', 'Bearer token'],
  ['api_key', 'API key'],
  ['basic', 'Basic (user and password)'],
  ['custom_header', 'Custom header'],
];

type Auth = any;

/**
 * The outbound authentication of a Webhook or MCP card (the same five shapes, at `data.config.auth`):
 * secrets in `SecretField`s, which show the server's mask and keep it unless a new value is typed.
 */
export function AuthFields({ auth, onChange }: { auth: Auth; onChange(auth: Auth): void }) {
  const setAuth = (change: Record<string, unknown>) => onChange({ ...auth, ...change });
  return (
    <fieldset>
      <legend>Authentication</legend>
      <SelectField
        label="Auth type"
        path="data.config.auth.type"
        value={auth.type ?? 'none'}
        options={AUTH_TYPES}
        onChange={(type) => onChange({ type })}
      />
      {auth.type === 'bearer' ? (
        <SecretField label="Bearer token" path="data.config.auth.token" value={auth.token} onChange={(token) => setAuth({ token })} />
      ) : null}
      {auth.type === 'api_key' ? (
        <>
          <SecretField label="API key" path="data.config.auth.apiKey" value={auth.apiKey} onChange={(apiKey) => setAuth({ apiKey })} />
          <TextField
            label="API key name"
            path="data.config.auth.apiKeyName"
            value={auth.apiKeyName}
            onChange={(apiKeyName) => setAuth({ apiKeyName })}
            placeholder="X-Api-Key"
          />
          <SelectField
            label="API key location"
            path="data.config.auth.apiKeyLocation"
            value={auth.apiKeyLocation ?? 'header'}
            options={['header', 'query']}
            onChange={(apiKeyLocation) => setAuth({ apiKeyLocation })}
          />
        </>
      ) : null}
      {auth.type === 'basic' ? (
        <>
          <TextField
            label="Username"
            path="data.config.auth.username"
            value={auth.username}
            onChange={(username) => setAuth({ username })}
          />
          <SecretField
            label="Password"
            path="data.config.auth.password"
            value={auth.password}
            onChange={(password) => setAuth({ password })}
          />
        </>
      ) : null}
      {auth.type === 'custom_header' ? (
        <>
          <TextField
            label="Header name"
            path="data.config.auth.customHeaderName"
            value={auth.customHeaderName}
            onChange={(customHeaderName) => setAuth({ customHeaderName })}
          />
          <SecretField
            label="Header value"
            path="data.config.auth.customHeaderValue"
            value={auth.customHeaderValue}
            onChange={(customHeaderValue) => setAuth({ customHeaderValue })}
          />
        </>
      ) : null}
    </fieldset>
  );
}
