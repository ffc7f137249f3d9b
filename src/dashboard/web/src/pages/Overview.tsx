import { useApi } from '../api';
import { href } from '../router';
import { STATUSES } from '../status';
import { StatusBadge } from '../components/StatusBadge';
import { Empty, Load, Time } from '../components/common';
import type { OverviewData } from '../types';

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export function Overview() {
  const res = useApi<OverviewData>('/overview', () => true);
  return (
    <Load res={res}>
      {(d) => (
        <div className="overview">
          <section className="card wide">
            <h2>Task projects <span className="count">{d.projects.length}</span></h2>
            {d.projects.length === 0 ? (
              <Empty>No task graphs yet. An agent creates one with <code>init_project_graph</code>.</Empty>
            ) : (
              <table className="table" data-testid="projects">
                <thead>
                  <tr>
                    <th>Project</th>
                    <th>Tasks</th>
                    <th>By status</th>
                    <th>Updated</th>
                  </tr>
                </thead>
                <tbody>
                  {d.projects.map((p) => (
                    <tr key={p.id} data-project={p.id}>
                      <td>
                        <a href={href('tasks', p.id)} className="strong">{p.name}</a>
                        <div className="muted small">{p.id}</div>
                      </td>
                      <td className="num">{p.total}</td>
                      <td>
                        {/* The flex row lives inside the cell: a cell that is itself a flex box leaves the table grid. */}
                        <div className="badges">
                          {STATUSES.filter((s) => p.counts[s]).map((s) => (
                            <StatusBadge key={s} status={s} count={p.counts[s]} />
                          ))}
                        </div>
                      </td>
                      <td><Time iso={p.updatedAt} /></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          {d.sessions.available ? (
            <section className="card">
              <h2>Active workflow sessions <span className="count">{d.sessions.active.length}</span></h2>
              {d.sessions.active.length === 0 ? (
                <Empty>No active sessions.</Empty>
              ) : (
                <ul className="list">
                  {d.sessions.active.map((s) => (
                    <li key={s.id}>
                      <a href={href('sessions', s.id)} className="strong">{s.workflowName ?? s.workflowId}</a>
                      <span className="muted small"> {s.id}</span>
                      {s.progress ? <span className="pill">{s.progress.done} of {s.progress.total} steps</span> : null}
                      <div className="muted small">updated <Time iso={s.updatedAt} /></div>
                    </li>
                  ))}
                </ul>
              )}
            </section>
          ) : null}
          <section className="card">
            <h2>Recent graph runs <span className="count">{d.graphRuns.length}</span></h2>
            {d.graphRuns.length === 0 ? (
              <Empty>No recorded runs. Runs of graph tools are recorded by every server using this data dir.</Empty>
            ) : (
              <ul className="list">
                {d.graphRuns.map((r) => (
                  <li key={r.runId}>
                    <a href={href('runs', r.runId)} className="strong">{r.tool}</a>{' '}
                    <span className={`run-status ${r.status}`}>{r.status}</span>
                    {r.draft ? <> <span className="pill" data-testid="run-draft-tag" title="a run of a definition not saved">draft</span></> : null}
                    <div className="muted small">
                      <Time iso={r.startedAt} /> · {r.durationMs} ms · {r.nodeExecutions} node executions
                    </div>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section className="card">
            <h2>Knowledge projects <span className="count">{d.knowledge.length}</span></h2>
            {d.knowledge.length === 0 ? (
              <Empty>No knowledge graphs yet.</Empty>
            ) : (
              <ul className="list">
                {d.knowledge.map((k) => (
                  <li key={k.project}>
                    <a href={href('knowledge', k.project)} className="strong">{k.project}</a>
                    <div className="muted small">
                      {bytes(k.sizeBytes)} · {k.backups} backup{k.backups === 1 ? '' : 's'} · changed <Time iso={k.modifiedAt} />
                    </div>
                  </li>
                ))}
              </ul>
            )}
          </section>
        </div>
      )}
    </Load>
  );
}
