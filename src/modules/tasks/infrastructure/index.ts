export * from './file-task-graph-store';
export * from './fs-scaffold-file-writer';
