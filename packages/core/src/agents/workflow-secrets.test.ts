import { describe, expect, it } from 'vitest';
import { maskWorkflowSecrets, restoreWorkflowSecrets, SECRET_MASK } from './workflow-secrets';

const workflow = (auth: Record<string, unknown>, headers: Record<string, string> = {}) => ({
  nodes: [
    { id: 'start', type: 'start', data: {} },
    {
      id: 'card',
      type: 'webhook',
      data: {
        name: 'API',
        config: {
          baseUrl: 'https://api.example.com',
          auth,
          defaultHeaders: { 'X-Client': 'fathom', ...headers },
          routes: [
            {
              id: 'r1',
              name: 'get',
              description: 'd',
              whenToUse: 'w',
              path: '/',
              headers: { 'X-Api-Key': 'route-secret', Accept: 'text/plain' },
            },
          ],
        },
      },
    },
  ],
  edges: [],
});

describe('card secrets', () => {
  it('masks every auth credential and secret-looking header, leaving the rest as written', () => {
    for (const [auth, field] of [
      [{ type: 'bearer', token: 'sk-1' }, 'token'],
      [{ type: 'api_key', apiKey: 'sk-2', apiKeyName: 'X-Key' }, 'apiKey'],
      [{ type: 'basic', username: 'ann', password: 'pw' }, 'password'],
      [{ type: 'custom_header', customHeaderName: 'X-T', customHeaderValue: 'sk-3' }, 'customHeaderValue'],
    ] as const) {
      const masked = maskWorkflowSecrets(workflow(auth, { Authorization: 'Bearer sk-h' })) as any;
      const config = masked.nodes[1].data.config;
      expect(config.auth[field]).toBe(SECRET_MASK);
      expect(config.defaultHeaders).toEqual({ 'X-Client': 'fathom', Authorization: SECRET_MASK });
      expect(config.routes[0].headers).toEqual({ 'X-Api-Key': SECRET_MASK, Accept: 'text/plain' });
      expect(JSON.stringify(masked)).not.toMatch(/sk-|"pw"|route-secret/);
    }
    expect(
      (maskWorkflowSecrets(workflow({ type: 'basic', username: 'ann', password: 'pw' })) as any).nodes[1].data.config.auth.username,
    ).toBe('ann');
  });

  it('puts stored secrets back where the mask is sent, and keeps new values', () => {
    const stored = workflow({ type: 'bearer', token: 'sk-old' }, { Authorization: 'Bearer sk-h' });
    const edited = maskWorkflowSecrets(stored) as any;
    edited.nodes[1].data.config.routes[0].headers['X-Api-Key'] = 'route-new';
    const restored = restoreWorkflowSecrets(edited, stored) as any;
    expect(restored.nodes[1].data.config.auth.token).toBe('sk-old');
    expect(restored.nodes[1].data.config.defaultHeaders.Authorization).toBe('Bearer sk-h');
    expect(restored.nodes[1].data.config.routes[0].headers['X-Api-Key']).toBe('route-new');
  });

  it('refuses a mask with no stored secret behind it, naming the field', () => {
    const incoming = workflow({ type: 'bearer', token: SECRET_MASK });
    expect(() => restoreWorkflowSecrets(incoming, undefined)).toThrow(
      expect.objectContaining({ param: 'workflow.nodes[1].data.config.auth.token', code: 'masked_secret_unknown' }),
    );
    // A card whose auth type changed has no stored value at the new field either.
    const stored = workflow({ type: 'bearer', token: 'sk-old' });
    expect(() =>
      restoreWorkflowSecrets(workflow({ type: 'custom_header', customHeaderName: 'X', customHeaderValue: SECRET_MASK }), stored),
    ).toThrow(/customHeaderValue/);
  });

  it('copies only what it writes: the workflow it masks or restores keeps its own values', () => {
    const stored = workflow({ type: 'bearer', token: 'sk-old' }, { Authorization: 'Bearer sk-h' });
    const before = JSON.stringify(stored);
    const masked = maskWorkflowSecrets(stored) as any;
    expect(JSON.stringify(stored)).toBe(before);
    expect(masked.nodes[1].data.config.auth).not.toBe(stored.nodes[1]!.data.config!.auth);
    // What holds no secret is shared, not copied (a workflow may be a 4 MiB body).
    expect(masked.nodes[0]).toBe(stored.nodes[0]);
    const incoming = maskWorkflowSecrets(stored) as any;
    const sent = JSON.stringify(incoming);
    const restored = restoreWorkflowSecrets(incoming, stored) as any;
    expect(JSON.stringify(incoming)).toBe(sent);
    expect(restored.nodes[1].data.config.auth.token).toBe('sk-old');
    expect(restored.nodes[1].data.config.routes[0].headers['X-Api-Key']).toBe('route-secret');
  });
});
