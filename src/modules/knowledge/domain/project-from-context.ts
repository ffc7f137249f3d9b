import { InvalidArgumentsError } from '../../../kernel/errors';
import { projectIdFromName } from '../../../kernel/project-id';

/**
 * The project name of a `projectContext`: its last path segment. Both `/` and `\` separate segments (so Windows
 * paths like `C:\work\app\` work on any platform) and trailing separators are ignored: `/a/b/` → `b`,
 * `C:\work\app\` → `app`, `app` → `app`.
 * @throws InvalidArgumentsError when no segment remains (`/`, `C:\`, empty).
 */
export function projectNameFromContext(projectContext: string, field = 'projectContext'): string {
  if (typeof projectContext !== 'string' || projectContext.includes('\0')) {
    throw new InvalidArgumentsError(`${field}: expected a folder path or project name without NUL bytes`, field);
  }
  const segments = projectContext
    .trim()
    .split(/[\\/]+/)
    .filter((s) => s !== '' && s !== '.');
  const last = segments[segments.length - 1];
  // A bare drive (`C:`) is not a project.
  if (last === undefined || /^[a-zA-Z]:$/.test(last) || last === '..') {
    throw new InvalidArgumentsError(`${field}: '${projectContext}' has no last folder name to take the project from`, field);
  }
  return last;
}

/** The safe project id (folder name under `<data-dir>/projects/`) of a `projectContext`: `C:\work\My App\` → `my-app`. */
export function projectIdFromContext(projectContext: string, field = 'projectContext'): string {
  return projectIdFromName(projectNameFromContext(projectContext, field), field);
}
