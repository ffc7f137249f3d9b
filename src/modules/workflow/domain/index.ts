/** The workflow domain: the model, conditions, step resolution, guidance, step lookup and structural checks. */
export * from './types';
export * from './context-path';
export * from './conditions';
export * from './template';
export * from './completion-id';
export * from './loop-runtime';
export * from './workflow-index';
export * from './step-resolution';
export * from './guidance';
export * from './verification-guidance';
export * from './step-lookup';
export * from './structure-checks';
