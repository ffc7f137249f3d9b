import * as path from 'node:path';
import { ProjectLayout } from '../../../kernel/files/project-layout';

/** File names of a project's knowledge graph inside `<data-dir>/projects/<id>/`. */
export const GRAPH_FILE = 'knowledge_graph.ndjson';
export const DELETED_FILE = 'knowledge_graph.deleted.ndjson';
export const BACKUP_DIR = 'backup';

export interface KnowledgePaths {
  dir: string;
  graph: string;
  deleted: string;
  backupDir: string;
}

export function knowledgePaths(layout: ProjectLayout, project: string): KnowledgePaths {
  const dir = layout.projectDir(project);
  return {
    dir,
    graph: path.join(dir, GRAPH_FILE),
    deleted: path.join(dir, DELETED_FILE),
    backupDir: path.join(dir, BACKUP_DIR),
  };
}
