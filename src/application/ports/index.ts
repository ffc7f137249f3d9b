export * from './use-case';
export * from './call-context';
export * from './sampler';
export * from './logger';
export * from './clock';
export * from './path-policy';
export * from './workflow-storage';
