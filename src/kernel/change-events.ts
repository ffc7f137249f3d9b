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

/** What one live view watches: a session, or a project's tasks (the fields of a {@link ChangeEvent} but its time). */
export type ChangeTarget = Omit<ChangeEvent, 'at'>;

export interface ChangeEvents {
  publish(event: ChangeEvent): void;
  /** Returns the function that removes the listener. */
  subscribe(listener: ChangeListener): () => void;
  /**
   * Starts hearing the changes OTHER processes make to this target, published like this process's own; returns the
   * function that stops (calls are counted: it stops when every caller did). Absent on adapters that cannot see
   * other processes, or that hear every change anyway (PostgreSQL LISTEN/NOTIFY).
   */
  watch?(target: ChangeTarget): () => void;
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
