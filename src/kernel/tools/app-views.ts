/**
 * The MCP Apps views (the `io.modelcontextprotocol/ui` extension) workgraph serves: each is one self-contained HTML
 * document built from the dashboard's components (src/dashboard/web/views), served as `ui://workgraph/<view>` to
 * clients that declare the extension (src/server/mcp-apps.ts). A tool names the view that shows its result in its
 * declaration (`view` in tool-definition.ts). Pure: names only.
 */
export const APP_VIEWS = ['task-dag', 'session', 'graph-run', 'knowledge-search'] as const;

export type AppView = (typeof APP_VIEWS)[number];

/** What each view shows (the resource's title and description). */
export const APP_VIEW_TITLES: Record<AppView, { title: string; description: string }> = {
  'task-dag': { title: 'Task DAG', description: "A project's task DAG: statuses, claims, the selected task's runs and output tails." },
  session: { title: 'Workflow session', description: "A workflow session's progress, current step and timeline; approve a step that asks for confirmation." },
  'graph-run': { title: 'Graph run', description: 'A graph tool run: its node executions on a timeline, with time travel to what each saw and returned.' },
  'knowledge-search': { title: 'Knowledge search', description: 'Knowledge search results: hits with their marked snippets, roles, tags, projects and scores.' },
};

/** The resource URI of a view. */
export function appViewUri(view: AppView): string {
  return `ui://workgraph/${view}`;
}

/**
 * What views read from the server through the host besides their documents (the extension's `resources/read` from a
 * view, `App.readServerResource`): ELK's worker script, gzipped, which the task DAG and graph run views start as a
 * Web Worker only when they have a graph small enough for ELK to lay out — so no view's document carries it. Not
 * views: not listed in `resources/list` (the extension has no way to keep a resource from the model's list, as
 * `_meta.ui.visibility` does for tools), read by the views that use it.
 */
export const VIEW_ASSETS = {
  'elk-worker': { uri: 'ui://workgraph/assets/elk-worker.js.gz', mimeType: 'application/gzip', usedBy: ['task-dag', 'graph-run'] as readonly AppView[] },
} as const;

export type ViewAsset = keyof typeof VIEW_ASSETS;
