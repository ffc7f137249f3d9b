export * from './file-task-graph-store';
export * from './fs-scaffold-file-writer';
export * from './transition-log';
