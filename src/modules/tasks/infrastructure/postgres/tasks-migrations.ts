import type { Migration } from '../../../../kernel/postgres/migrations';

/**
 * The tasks module's PostgreSQL schema. Since version 4 a project is one row (`wg_task_projects`: the graph's own
 * fields, its revision) and each task one row (`wg_tasks`), so an edit writes only the tasks it changed. Tasks are kept
 * as `json` (not `jsonb`) so they read back in the order their fields were written, like the file store; transition
 * times are the exact strings the file log holds.
 */
export const tasksMigrations: Migration[] = [
  {
    module: 'tasks',
    version: 1,
    name: 'task graphs and transition log',
    sql: `
      CREATE TABLE wg_task_graphs (
        project_id text PRIMARY KEY,
        graph json NOT NULL,
        revision integer NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE wg_task_transitions (
        seq bigserial PRIMARY KEY,
        project_id text NOT NULL,
        node text NOT NULL,
        from_status text NOT NULL,
        to_status text NOT NULL,
        time text NOT NULL,
        attempt integer NOT NULL
      );
      CREATE INDEX wg_task_transitions_project ON wg_task_transitions (project_id, seq);
    `,
  },
  {
    module: 'tasks',
    version: 2,
    name: 'attempt records in the transition log',
    // A failed attempt's transition carries its record, as in the file log: the graph keeps only the latest 20.
    sql: `ALTER TABLE wg_task_transitions ADD COLUMN record json;`,
  },
  {
    module: 'tasks',
    version: 3,
    name: 'history of plan changes',
    // Written in the same transaction as the graph row: a change and its history entry commit together.
    sql: `
      CREATE TABLE wg_task_history (
        seq bigserial PRIMARY KEY,
        project_id text NOT NULL,
        revision integer NOT NULL,
        nodes text[] NOT NULL,
        entry json NOT NULL
      );
      CREATE INDEX wg_task_history_project ON wg_task_history (project_id, seq);
    `,
  },
  {
    module: 'tasks',
    version: 4,
    name: 'a row per task, actors on transitions',
    // The graph json rows become a project row and a row per task, in this one transaction (the migration's): every
    // graph's fields, revision and nodes (in their order) are copied, then the old table goes. `write_seq` (one
    // sequence for every project) says which write last touched a row: a server holding a project in memory reads only
    // the rows written since. `position` orders the tasks as the graph lists them (gaps let a task be put between two).
    sql: `
      CREATE SEQUENCE wg_task_write_seq;
      CREATE TABLE wg_task_projects (
        project_id text PRIMARY KEY,
        schema_version integer NOT NULL,
        project_name text NOT NULL,
        project_root text NOT NULL,
        created_at text NOT NULL,
        graph_updated_at text NOT NULL,
        revision integer NOT NULL,
        node_count integer NOT NULL,
        write_seq bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE wg_tasks (
        project_id text NOT NULL,
        node_id text NOT NULL,
        position double precision NOT NULL,
        write_seq bigint NOT NULL,
        node json NOT NULL,
        PRIMARY KEY (project_id, node_id)
      );
      CREATE INDEX wg_tasks_written ON wg_tasks (project_id, write_seq);
      INSERT INTO wg_task_projects (project_id, schema_version, project_name, project_root, created_at, graph_updated_at, revision, node_count, write_seq, updated_at)
        SELECT project_id, (graph->>'schema_version')::int, graph->>'project_name', graph->>'project_root', graph->>'created_at',
               graph->>'updated_at', revision, json_array_length(graph->'nodes'), nextval('wg_task_write_seq'), updated_at
        FROM wg_task_graphs;
      INSERT INTO wg_tasks (project_id, node_id, position, write_seq, node)
        SELECT g.project_id, e.node->>'id', e.ord, p.write_seq, e.node
        FROM wg_task_graphs g
        JOIN wg_task_projects p ON p.project_id = g.project_id
        CROSS JOIN LATERAL json_array_elements(g.graph->'nodes') WITH ORDINALITY AS e(node, ord);
      DROP TABLE wg_task_graphs;
      ALTER TABLE wg_task_transitions ADD COLUMN actor json;
      CREATE INDEX wg_task_transitions_node ON wg_task_transitions (project_id, node, seq);
    `,
  },
];
