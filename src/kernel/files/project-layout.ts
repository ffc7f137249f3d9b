import * as path from 'node:path';
import { InvalidArgumentsError } from '../errors';
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

/** Moved to the domain (pure); re-exported here so existing imports keep working. */
export { projectIdFromName } from '../project-id';
