import { createRoot } from 'react-dom/client';
import { lazy, Suspense, type ComponentType } from 'react';
import '@xyflow/react/dist/style.css';
import './styles.css';
import { useApi, useLiveStatus, token } from './api';
import { href, useRoute } from './router';
import { MetaContext, type Meta } from './meta';
import { Overview } from './pages/Overview';

/**
 * Pages other than the overview load with their first visit (Vite splits them into chunks): the overview needs neither
 * React Flow and ELK (drawings) nor markdown-it (sessions), so the first screen loads only what it shows.
 */
function page<M, K extends keyof M>(load: () => Promise<M>, name: K) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return lazy(() => load().then((m) => ({ default: m[name] as ComponentType<any> })));
}
const TaskDag = page(() => import('./pages/TaskDag'), 'TaskDag');
const Sessions = page(() => import('./pages/Sessions'), 'Sessions');
const SessionPage = page(() => import('./pages/Sessions'), 'SessionPage');
const GraphTools = page(() => import('./pages/Graphs'), 'GraphTools');
const GraphToolPage = page(() => import('./pages/Graphs'), 'GraphToolPage');
const GraphRunPage = page(() => import('./pages/Graphs'), 'GraphRunPage');
const KnowledgeProjects = page(() => import('./pages/Knowledge'), 'KnowledgeProjects');
const KnowledgeProject = page(() => import('./pages/Knowledge'), 'KnowledgeProject');
const KnowledgeNodePage = page(() => import('./pages/Knowledge'), 'KnowledgeNodePage');

function Page({ route }: { route: string[] }) {
  const [section, a, b] = route;
  switch (section) {
    case undefined:
      return <Overview />;
    case 'tasks':
      return a ? <TaskDag project={a} /> : <Overview />;
    case 'sessions':
      return a ? <SessionPage id={a} /> : <Sessions />;
    case 'graphs':
      // `#/graphs/<tool>/debug/<run>`: the tool's page driving that debug run (the URL a debug run's page is left at).
      return a ? <GraphToolPage tool={a} debugRun={b === 'debug' ? route[3] : undefined} /> : <GraphTools />;
    case 'runs':
      return <GraphRunPage runId={a} />;
    case 'knowledge':
      if (a && b) return <KnowledgeNodePage project={a} id={b} />;
      return a ? <KnowledgeProject project={a} /> : <KnowledgeProjects />;
    default:
      return <div className="error">No page at #{route.join('/')}</div>;
  }
}

function App() {
  const route = useRoute();
  const meta = useApi<Meta>('/meta');
  const live = useLiveStatus();
  const section = route[0] ?? '';
  const nav: Array<[string, string, string]> = [
    ['', 'Overview', '#/'],
    ...(meta.data?.features.sessions !== false ? [['sessions', 'Workflow sessions', href('sessions')] as [string, string, string]] : []),
    ['graphs', 'Graph tools', href('graphs')],
    ['knowledge', 'Knowledge', href('knowledge')],
  ];
  return (
    <MetaContext.Provider value={meta.data}>
      <header className="top">
        <a className="brand" href="#/">workgraph</a>
        <nav>
          {nav.map(([key, label, to]) => (
            <a key={key} href={to} className={section === key ? 'active' : ''}
              aria-current={section === key ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <span className="spacer" />
        {meta.data ? (
          <span className={meta.data.allowActions ? 'mode actions' : 'mode'} data-testid="mode">
            {meta.data.allowActions ? 'Actions enabled' : 'Read-only'}
          </span>
        ) : null}
        <span className={live ? 'live on' : 'live'} data-testid="live" title={live ? 'Receiving live updates' : 'Not connected'}>
          {live ? '● Live' : '○ Offline'}
        </span>
      </header>
      <main>
        {!token || meta.error ? (
          <div className="error" role="alert">
            {meta.error?.message ?? 'No access token: open the URL that `workgraph dashboard` printed (it ends in ?token=…).'}
          </div>
        ) : (
          // One page per route: moving to another run, task graph or session starts from a fresh page (no selection
          // of the page before, such as an execution number the new run does not have).
          <Suspense fallback={<div className="muted">Loading…</div>}>
            <Page key={route.join('/')} route={route} />
          </Suspense>
        )}
      </main>
    </MetaContext.Provider>
  );
}

createRoot(document.getElementById('root')!).render(<App />);
