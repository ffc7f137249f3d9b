export * from './add-nodes';
export * from './list-nodes';
export * from './get-node';
export * from './delete-nodes';
export * from './restore-nodes';
export * from './recalculate-summaries';
