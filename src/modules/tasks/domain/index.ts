export * from './task-status';
export * from './task-graph';
export * from './graph-checks';
export * from './create-task-graph';
export * from './task-transitions';
export * from './stale-validation';
export * from './graph-queries';
export * from './mermaid';
