import { StorageError } from '../../../../kernel/errors';
import { foldImportedSession, type SessionEvent, type SessionState } from '../../domain/sessions';

/** The state an imported log folds to (both session stores' `importSession`), or one line saying why it is not a session. */
export function importedState(events: readonly SessionEvent[]): SessionState {
  try {
    return foldImportedSession(events);
  } catch (e) {
    const id = (events[0] as { sessionId?: unknown } | undefined)?.sessionId;
    throw new StorageError(`session '${String(id)}' cannot be imported: ${(e as Error).message}`, { sessionId: id });
  }
}
