import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { ApiClient } from './api/client';
import { ApiContext } from './components/ui';
import { AdminPage } from './pages/admin';
import { AgentsPage } from './pages/agents';
import { BatchesPage } from './pages/batches';
import { DataToolsPage } from './pages/data-tools';
import { FilesPage } from './pages/files';
import { PlaygroundPage } from './pages/playground';
import { SignInPage } from './pages/sign-in';
import { VectorStoresPage } from './pages/vector-stores';
import { navigate, useRoute } from './router';
import { loadSession, saveSession, type Session } from './session';

// React Flow and the editor load only when an agent is opened, keeping the first page small.
const AgentEditor = lazy(() => import('./agents/agent-editor'));
// The usage page brings the chart library (uPlot): it loads when the page is opened.
const UsagePage = lazy(() => import('./pages/usage'));
// The keys page (forms, dialogs) loads when opened too.
const KeysPage = lazy(() => import('./pages/keys').then((module) => ({ default: module.KeysPage })));

const ACCOUNT_PAGES = [
  { path: 'agents', label: 'Agents' },
  { path: 'files', label: 'Files' },
  { path: 'stores', label: 'Vector stores' },
  { path: 'batches', label: 'Batches' },
  { path: 'playground', label: 'Playground' },
  { path: 'tools', label: 'Data tools' },
  { path: 'usage', label: 'Usage' },
  { path: 'keys', label: 'Keys' },
];
const ADMIN_PAGES = [{ path: 'admin', label: 'Accounts' }];

export function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const route = useRoute();
  const api = useMemo(() => (session ? new ApiClient(session.key) : null), [session]);
  const pages = session?.kind === 'admin' ? ADMIN_PAGES : ACCOUNT_PAGES;
  const page = route[0] && pages.some((entry) => entry.path === route[0]) ? route[0] : pages[0]!.path;

  useEffect(() => {
    if (session && route[0] !== page) navigate(`/${page}`);
  }, [session, route, page]);

  const signIn = (next: Session) => {
    saveSession(next);
    setSession(next);
    navigate(next.kind === 'admin' ? '/admin' : '/agents');
  };
  const signOut = () => {
    saveSession(null);
    setSession(null);
    navigate('/');
  };

  if (!session || !api) return <SignInPage onSignIn={signIn} />;
  const title = pages.find((entry) => entry.path === page)?.label ?? '';
  return (
    <ApiContext.Provider value={api}>
      <div className="shell">
        <button type="button" className="skip" onClick={() => document.getElementById('main')?.focus()}>
          Skip to content
        </button>
        <header className="topbar">
          <span className="brand">Fathom Console</span>
          <nav aria-label="Pages">
            {pages.map((entry) => (
              <a key={entry.path} href={`#/${entry.path}`} aria-current={entry.path === page ? 'page' : undefined}>
                {entry.label}
              </a>
            ))}
          </nav>
          <span className="who">{session.kind === 'admin' ? 'Administrator' : session.name}</span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </header>
        <main id="main" tabIndex={-1} aria-label={title}>
          {page === 'agents' && route[1] ? (
            <Suspense fallback={<p aria-live="polite">Loading the editor…</p>}>
              <AgentEditor key={route[1]} agentId={route[1] === 'new' ? null : route[1]} />
            </Suspense>
          ) : page === 'agents' ? (
            <AgentsPage />
          ) : page === 'files' ? (
            <FilesPage />
          ) : page === 'stores' ? (
            <VectorStoresPage storeId={route[1]} />
          ) : page === 'batches' ? (
            <BatchesPage />
          ) : page === 'playground' ? (
            <PlaygroundPage />
          ) : page === 'tools' ? (
            <DataToolsPage />
          ) : page === 'usage' ? (
            <Suspense fallback={<p className="note">Loading…</p>}>
              <UsagePage />
            </Suspense>
          ) : page === 'keys' ? (
            <Suspense fallback={<p className="note">Loading…</p>}>
              <KeysPage sessionKey={session.key} />
            </Suspense>
          ) : (
            <AdminPage />
          )}
        </main>
      </div>
    </ApiContext.Provider>
  );
}
