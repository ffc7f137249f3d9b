/**
 * Knowledge search results as an MCP Apps view (ui://workgraph/knowledge-search): search_nodes' hits drawn with the
 * dashboard's own node rows (pages/Knowledge.tsx: role, first line, the snippet with its matched words marked, id,
 * time, tags), each hit's project and score beside it. The result it is handed is drawn as is; "More results" reads
 * the next page with search_nodes (the same query, the result's nextCursor) through the host; a later result
 * replaces the list. A change to a project of the hits (nodes written elsewhere) re-runs the search's first page.
 */
import { createRoot } from 'react-dom/client';
import { useCallback, useEffect, useRef, useState } from 'react';
import '../styles.css';
import './view.css';
import { NodeRow, searchTotal, type BriefNode } from '../pages/Knowledge';
import { Empty } from '../components/common';
import { callTool, connectHost, useHost, useResourceChanges } from './host';
import { ViewFrame } from './ViewFrame';

connectHost('knowledge search');

interface Hit extends BriefNode {
  project: string;
  score: number;
  deleted?: boolean;
}
interface SearchResult {
  project: string | null;
  hits: Hit[];
  total: number;
  totalExact: boolean;
  nextCursor: string | null;
}

function KnowledgeSearchApp() {
  const host = useHost();
  const [result, setResult] = useState<SearchResult>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const seen = useRef(0);
  useEffect(() => {
    for (const r of host.results.slice(seen.current)) {
      if (r.error !== undefined) setError(r.error);
      else if (Array.isArray(r.structured?.hits)) {
        setResult(r.structured as unknown as SearchResult);
        setError(undefined);
      }
    }
    seen.current = host.results.length;
  }, [host.results]);

  const more = async () => {
    if (!result?.nextCursor) return;
    setBusy(true);
    try {
      const page = await callTool<SearchResult>('search_nodes', { ...(host.input ?? {}), cursor: result.nextCursor });
      setResult({ ...page, hits: [...result.hits, ...page.hits] });
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const query = host.input?.query as string | undefined;
  const projects = result ? [...new Set(result.hits.map((h) => h.project))] : [];
  // A project of the hits written elsewhere: the first page of the same search read again (it replaces the list).
  const watched = [...new Set([...(result?.project ? [result.project] : []), ...projects])].sort();
  useResourceChanges(
    watched.map((p) => `workgraph://knowledge/${p}`),
    useCallback(() => {
      const { cursor: _cursor, ...input } = host.input ?? {};
      callTool<SearchResult>('search_nodes', input).then(
        (page) => {
          setResult(page);
          setError(undefined);
        },
        (e: Error) => setError(e.message),
      );
    }, [host.input]),
  );
  return (
    <ViewFrame title={query ? `Search: ${query}` : 'Knowledge search'} subtitle={result?.project ?? (projects.length > 1 ? `${projects.length} projects` : undefined)} error={host.error ?? error}>
      {!result ? (
        <div className="muted">{host.connected ? 'Waiting for the tool result…' : 'Connecting to the host…'}</div>
      ) : result.hits.length === 0 ? (
        <Empty>No node matches.</Empty>
      ) : (
        <>
          <p className="small muted" data-testid="hit-count">{result.hits.length} of {searchTotal(result.total, result.totalExact !== false)} hit{result.total === 1 && result.totalExact !== false ? '' : 's'}</p>
          <ul className="knodes" data-testid="hits">
            {result.hits.map((h) => (
              <NodeRow key={`${h.project}/${h.id}`} node={h} extra={<> · <span data-testid="hit-project">{h.project}</span> · score {h.score.toFixed(2)}{h.deleted ? ' · deleted' : ''}</>} />
            ))}
          </ul>
          {result.nextCursor ? <button onClick={more} disabled={busy} data-testid="more-hits">More results</button> : null}
        </>
      )}
    </ViewFrame>
  );
}

createRoot(document.getElementById('root')!).render(<KnowledgeSearchApp />);
