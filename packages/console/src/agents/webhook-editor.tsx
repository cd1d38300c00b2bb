import { AuthFields } from './auth-fields';
import { CheckField, NumberField, TextField } from './fields';
import { RouteEditor } from './route-editor';

type Card = any;

/**
 * Every field of the Webhook card, its routes and their parameters, except the three the spec keeps
 * to the workflow JSON (`defaultHeaders`, route `queryParams` and `headers`): those are edited in the
 * JSON view. Paths (`data.config.routes[0].whenToUse`) tie each field to the server's errors.
 */
export function WebhookEditor({ card, onChange }: { card: Card; onChange(card: Card): void }) {
  const config = card.config ?? {};
  const auth = config.auth ?? { type: 'none' };
  const routes: any[] = config.routes ?? [];
  const setConfig = (change: Record<string, unknown>) => onChange({ ...card, config: { ...config, ...change } });
  const setRoute = (index: number, change: Record<string, unknown>) =>
    setConfig({ routes: routes.map((route, position) => (position === index ? { ...route, ...change } : route)) });
  const newRouteId = () => {
    const ids = new Set(routes.map((route) => route.id));
    let n = routes.length + 1;
    while (ids.has(`route-${n}`)) n++;
    return `route-${n}`;
  };

  return (
    <div className="editor-form">
      <TextField label="Card name" path="data.name" value={card.name} onChange={(name) => onChange({ ...card, name })} />
      <TextField
        label="Description"
        path="data.config.description"
        value={config.description}
        onChange={(description) => setConfig({ description })}
      />
      <TextField
        label="Base URL"
        path="data.config.baseUrl"
        value={config.baseUrl}
        onChange={(baseUrl) => setConfig({ baseUrl })}
        placeholder="https://api.example.com/v1"
      />
      <AuthFields auth={auth} onChange={(next) => setConfig({ auth: next })} />
      <fieldset>
        <legend>Calls</legend>
        <NumberField
          label="Timeout (ms)"
          path="data.config.timeout"
          min={1}
          value={config.timeout}
          onChange={(timeout) => setConfig({ timeout })}
          hint="Default 30000"
        />
        <CheckField
          label="Retry network failures"
          path="data.config.retryOnError"
          checked={config.retryOnError !== false}
          onChange={(retryOnError) => setConfig({ retryOnError })}
        />
        <NumberField
          label="Max retries"
          path="data.config.maxRetries"
          min={0}
          value={config.maxRetries}
          onChange={(maxRetries) => setConfig({ maxRetries })}
          hint="Default 2 (up to 3 attempts)"
        />
        <NumberField
          label="Max requests per minute"
          path="data.config.maxRequestsPerMinute"
          min={1}
          value={config.maxRequestsPerMinute}
          onChange={(maxRequestsPerMinute) => setConfig({ maxRequestsPerMinute })}
          hint="Empty: no limit"
        />
        <p className="note">Default headers, query strings and route headers are set in the JSON view.</p>
      </fieldset>
      {routes.map((route, index) => (
        <RouteEditor
          key={route.id ?? index}
          index={index}
          route={route}
          onChange={(change) => setRoute(index, change)}
          onRemove={() => setConfig({ routes: routes.filter((_, position) => position !== index) })}
        />
      ))}
      <button
        type="button"
        onClick={() =>
          setConfig({
            routes: [
              ...routes,
              { id: newRouteId(), name: '', description: '', whenToUse: '', method: 'GET', path: '/', parameters: [], enabled: true },
            ],
          })
        }
      >
        Add route
      </button>
    </div>
  );
}
