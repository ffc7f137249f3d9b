export * from './session-events';
export * from './session-state';
export * from './session-tree';
export * from './resume-ranking';
export * from './stable-json';
export * from './session-summary';
export * from './session-progress';
export * from './session-log-order';
