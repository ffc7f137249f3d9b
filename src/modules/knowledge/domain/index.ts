export * from './knowledge-node';
export * from './project-from-context';
export * from './descendant-collector';
export * from './summaries';
export * from './search';
