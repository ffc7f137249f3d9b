import * as path from 'node:path';
import { InvalidArgumentsError } from '../../domain/errors';
import { assertSafeName } from './safe-name';

/**
 * The project folder layout shared by the tasks and knowledge stores:
 * `<data-dir>/projects/<project-id>/` holds all of one project's files.
 */
export class ProjectLayout {
  constructor(readonly dataDir: string) {}

  /** `<data-dir>/projects` */
  get projectsDir(): string {
    return path.join(this.dataDir, 'projects');
  }

  /** The folder of one project. The id must already be a safe slug (see {@link projectIdFromName}). */
  projectDir(projectId: string): string {
    assertSafeName(projectId, 'project');
    if (!/^[a-z0-9][a-z0-9-]*$/.test(projectId)) {
      throw new InvalidArgumentsError(`project: '${projectId}' is not a valid project id (lowercase letters, digits, '-')`, 'project');
    }
    return path.join(this.projectsDir, projectId);
  }

  /** A file inside a project folder. */
  projectFile(projectId: string, ...segments: string[]): string {
    return path.join(this.projectDir(projectId), ...segments);
  }
}

/**
 * The path-safe id of a project name: lowercase letters, digits and `-` (other runs of characters become one `-`,
 * leading/trailing `-` trimmed). `My App_v2` → `my-app-v2`.
 * @throws InvalidArgumentsError when nothing usable remains.
 */
export function projectIdFromName(name: string, field = 'projectName'): string {
  if (typeof name !== 'string' || name.includes('\0')) {
    throw new InvalidArgumentsError(`${field}: expected a project name without NUL bytes`, field);
  }
  const id = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)
    .replace(/-+$/g, '');
  if (!id) throw new InvalidArgumentsError(`${field}: '${name}' has no letters or digits to make a project id from`, field);
  return id;
}
