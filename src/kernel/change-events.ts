/**
 * The change-event port: stores publish one event per change they make, and whoever shows live data subscribes —
 * MCP resource subscriptions (notifications/resources/updated), the dashboard's live view, later PostgreSQL
 * LISTEN/NOTIFY. Kept generic on purpose: an event names what changed, never carries the data, so a subscriber
 * re-reads only that.
 */
export interface ChangeEvent {
  kind: 'session' | 'tasks' | 'knowledge' | 'graph-run';
  /** The project id (tasks, knowledge) when the change belongs to one. */
  project?: string;
  /** What changed: the session id, the project id, the run id. */
  id: string;
  /** ISO time of the change. */
  at: string;
}

export type ChangeListener = (event: ChangeEvent) => void;

export interface ChangeEvents {
  publish(event: ChangeEvent): void;
  /** Returns the function that removes the listener. */
  subscribe(listener: ChangeListener): () => void;
}

/**
 * The in-process adapter: listeners run synchronously in publish order; a listener that throws is dropped from that
 * delivery only (a broken subscriber never fails the store's write that published).
 */
export class InProcessChangeEvents implements ChangeEvents {
  private readonly listeners = new Set<ChangeListener>();

  publish(event: ChangeEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        // Subscribers own their failures; the publishing store's operation already succeeded.
      }
    }
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** A port that drops every event (CLI commands and tests that nobody watches). */
export const noChangeEvents: ChangeEvents = { publish: () => undefined, subscribe: () => () => undefined };
