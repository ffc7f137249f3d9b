import { useEffect, useState, type ReactNode } from 'react';
import { api, useApi } from '../api';
import { useMeta } from '../meta';
import { href } from '../router';
import { Empty, Load, Time, actorText } from '../components/common';
import { snippetParts } from '../snippet-marks';
import type { KnowledgeProjectSummary } from '../types';

export interface BriefNode {
  id: string;
  role: string;
  tags: string[];
  createdAt: string;
  thought: string;
  /** Search hits only: the text around the match, matching words marked **so**, the thought's `\` and `*` escaped as `\\` and `\*` (server-side search_nodes). */
  snippet?: string;
}

/** A search's total: "2,345", or "10,000+" when the store stopped counting at its cap (totalExact false). */
export function searchTotal(total: number, exact: boolean): string {
  return `${total.toLocaleString('en-US')}${exact ? '' : '+'}`;
}

/** A search snippet with its **marked** words highlighted and its escaped `\*` and `\\` shown as `*` and `\`. */
export function Snippet({ text }: { text: string }) {
  return <div className="snippet small" data-testid="snippet">{snippetParts(text).map((p, i) => (p.marked ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}</div>;
}
/** One node of a list or of search hits: its role, first line (a link where `link`), snippet, id, time and tags. */
export function NodeRow({ node: n, link, extra }: { node: BriefNode; link?: string; extra?: ReactNode }) {
  const first = n.thought.split('\n')[0];
  return (
    <li data-node={n.id}>
      <div className="knode-head">
        <span className={`role role-${n.role}`}>{n.role}</span>
        {link ? <a href={link} className="strong">{first}</a> : <span className="strong">{first}</span>}
      </div>
      {n.snippet ? <Snippet text={n.snippet} /> : null}
      <div className="muted small">
        <code>{n.id}</code> · <Time iso={n.createdAt} /> {n.tags.map((tg) => <span key={tg} className="tag">#{tg}</span>)}
        {extra}
      </div>
    </li>
  );
}

interface FullNode extends BriefNode {
  project: string;
  projectContext: string;
  artifacts?: unknown[];
  parents: string[];
  children: string[];
  verdict?: string;
  verdictReason?: string;
  summarizedSegment?: string[];
  /** Who wrote it (absent on nodes written before actors were kept). */
  actor?: { name: string; client?: string };
}
interface DeletedRecord {
  nodeId: string;
  reason?: string;
  timestamp: string;
  nodeData: BriefNode;
}
interface Backup {
  file: string;
  sizeBytes: number;
  modifiedAt: string;
}

const ROLES = ['actor', 'critic', 'summary'];

export function KnowledgeProjects() {
  const res = useApi<{ projects: KnowledgeProjectSummary[] }>('/knowledge', (e) => e.kind === 'knowledge');
  return (
    <Load res={res}>
      {(d) => (
        <div className="page">
          <h1>Knowledge</h1>
          {d.projects.length === 0 ? (
            <Empty>No knowledge graphs in this data dir.</Empty>
          ) : (
            <ul className="list">
              {d.projects.map((p) => (
                <li key={p.project}>
                  <a className="strong" href={href('knowledge', p.project)}>{p.project}</a>
                  <div className="muted small">changed <Time iso={p.modifiedAt} /> · {p.backups} backups</div>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </Load>
  );
}

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

export function KnowledgeProject({ project }: { project: string }) {
  const [tab, setTab] = useState<'nodes' | 'deleted' | 'backups'>('nodes');
  return (
    <div className="page">
      <h1>Knowledge · {project}</h1>
      <div className="tabs" role="tablist">
        {(['nodes', 'deleted', 'backups'] as const).map((t) => (
          <button key={t} role="tab" aria-selected={tab === t} className={tab === t ? 'active' : ''} onClick={() => setTab(t)} data-testid={`tab-${t}`}>
            {t === 'nodes' ? 'Nodes' : t === 'deleted' ? 'Deleted' : 'Backups'}
          </button>
        ))}
      </div>
      {tab === 'nodes' ? <NodeList project={project} /> : tab === 'deleted' ? <DeletedList project={project} /> : <BackupList project={project} />}
    </div>
  );
}

function NodeList({ project }: { project: string }) {
  const [role, setRole] = useState('');
  const [tag, setTag] = useState('');
  const [text, setText] = useState('');
  const q = useDebounced(text, 250);
  const t = useDebounced(tag, 250);
  const params = new URLSearchParams();
  if (role) params.set('role', role);
  if (t) params.set('tag', t);
  if (q) params.set('q', q);
  params.set('limit', '50');
  const base = `/knowledge/${encodeURIComponent(project)}/nodes?${params}`;
  // With text the answer is search_nodes': `total` matches (a lower bound when not `totalExact`: "10,000+").
  const res = useApi<{ nodes: BriefNode[]; nextCursor: string | null; total?: number; totalExact?: boolean }>(base, (e) => e.kind === 'knowledge' && e.project === project);
  const [more, setMore] = useState<{ nodes: BriefNode[]; nextCursor: string | null }>();
  useEffect(() => setMore(undefined), [res.data]);
  const loadMore = async (cursor: string) => {
    const page = await api<{ nodes: BriefNode[]; nextCursor: string | null }>(`${base}&cursor=${encodeURIComponent(cursor)}`);
    setMore((m) => ({ nodes: [...(m?.nodes ?? []), ...page.nodes], nextCursor: page.nextCursor }));
  };
  return (
    <>
      <div className="filters">
        <label className="field">
          <span>Role</span>
          <select value={role} onChange={(e) => setRole(e.target.value)} data-testid="filter-role">
            <option value="">any</option>
            {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
          </select>
        </label>
        <label className="field">
          <span>Tag</span>
          <input value={tag} onChange={(e) => setTag(e.target.value)} placeholder="e.g. design" data-testid="filter-tag" />
        </label>
        <label className="field grow">
          <span>Search</span>
          <input type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder='words, "a phrase", -not, prefix*, a OR b' data-testid="filter-text" />
        </label>
      </div>
      <Load res={res}>
        {(d) => {
          const nodes = [...d.nodes, ...(more?.nodes ?? [])];
          const cursor = more ? more.nextCursor : d.nextCursor;
          return nodes.length === 0 ? (
            <Empty>No nodes match.</Empty>
          ) : (
            <>
              {q && d.total !== undefined ? (
                <p className="small muted" data-testid="match-count">{searchTotal(d.total, d.totalExact !== false)} match{d.total === 1 && d.totalExact !== false ? '' : 'es'}</p>
              ) : null}
              <ul className="knodes" data-testid="knodes">
                {nodes.map((n) => (
                  <NodeRow key={n.id} node={n} link={href('knowledge', project, n.id)} />
                ))}
              </ul>
              {cursor ? <button onClick={() => loadMore(cursor)}>{q ? 'More results' : 'Older nodes'}</button> : null}
            </>
          );
        }}
      </Load>
    </>
  );
}

function DeletedList({ project }: { project: string }) {
  const meta = useMeta();
  const res = useApi<{ records: DeletedRecord[] }>(`/knowledge/${encodeURIComponent(project)}/deleted`, (e) => e.kind === 'knowledge' && e.project === project);
  const [message, setMessage] = useState<string>();
  const restore = async (id: string) => {
    try {
      const r = await api<{ restored: string[] }>(`/knowledge/${encodeURIComponent(project)}/restore`, { method: 'POST', body: { nodeIds: [id] } });
      setMessage(`Restored ${r.restored.join(', ')}`);
    } catch (e) {
      setMessage((e as Error).message);
    }
  };
  return (
    <Load res={res}>
      {(d) =>
        d.records.length === 0 ? (
          <Empty>No deleted nodes.</Empty>
        ) : (
          <>
            {message ? <div className="notice">{message}</div> : null}
            <ul className="knodes" data-testid="deleted">
              {d.records.map((r, i) => (
                <li key={`${r.nodeId}-${i}`}>
                  <div className="knode-head">
                    <span className={`role role-${r.nodeData?.role}`}>{r.nodeData?.role}</span>
                    <span className="strong">{String(r.nodeData?.thought ?? '').split('\n')[0]}</span>
                  </div>
                  <div className="small">Reason: {r.reason ?? <span className="muted">none given</span>}</div>
                  <div className="muted small"><code>{r.nodeId}</code> · deleted <Time iso={r.timestamp} /></div>
                  {meta?.allowActions ? <button onClick={() => restore(r.nodeId)}>Restore</button> : null}
                </li>
              ))}
            </ul>
          </>
        )
      }
    </Load>
  );
}

function BackupList({ project }: { project: string }) {
  const res = useApi<{ backups: Backup[] }>(`/knowledge/${encodeURIComponent(project)}/backups`, (e) => e.kind === 'knowledge' && e.project === project);
  return (
    <Load res={res}>
      {(d) =>
        d.backups.length === 0 ? (
          <Empty>No backups (one is taken before every delete).</Empty>
        ) : (
          <table className="table">
            <thead><tr><th>File</th><th>Size</th><th>Taken</th></tr></thead>
            <tbody>
              {d.backups.map((b) => (
                <tr key={b.file}><td><code>{b.file}</code></td><td className="num">{b.sizeBytes} B</td><td><Time iso={b.modifiedAt} /></td></tr>
              ))}
            </tbody>
          </table>
        )
      }
    </Load>
  );
}

export function KnowledgeNodePage({ project, id }: { project: string; id: string }) {
  const res = useApi<FullNode>(`/knowledge/${encodeURIComponent(project)}/nodes/${encodeURIComponent(id)}`, (e) => e.kind === 'knowledge' && e.project === project);
  return (
    <Load res={res}>
      {(n) => (
        <div className="page">
          <p><a href={href('knowledge', project)}>‹ {project}</a></p>
          <h1><span className={`role role-${n.role}`}>{n.role}</span> {n.thought.split('\n')[0]}</h1>
          <div className="muted small">
            <code>{n.id}</code> · <Time iso={n.createdAt} />
            {actorText(n.actor) ? <> · written by <span data-testid="node-actor">{actorText(n.actor)}</span></> : null}{' '}
            {n.tags.map((t) => <span key={t} className="tag">#{t}</span>)}
          </div>
          <pre className="thought">{n.thought}</pre>
          {n.verdict ? <p><b>Verdict:</b> {n.verdict} {n.verdictReason ? `— ${n.verdictReason}` : ''}</p> : null}
          <div className="links">
            <section>
              <h3>Parents</h3>
              {n.parents.length ? <ul>{n.parents.map((p) => <li key={p}><a href={href('knowledge', project, p)}>{p}</a></li>)}</ul> : <div className="muted">None</div>}
            </section>
            <section>
              <h3>Children</h3>
              {n.children.length ? <ul>{n.children.map((c) => <li key={c}><a href={href('knowledge', project, c)}>{c}</a></li>)}</ul> : <div className="muted">None</div>}
            </section>
          </div>
          {n.artifacts && n.artifacts.length ? (<><h3>Artifacts</h3><pre className="json">{JSON.stringify(n.artifacts, null, 2)}</pre></>) : null}
        </div>
      )}
    </Load>
  );
}
