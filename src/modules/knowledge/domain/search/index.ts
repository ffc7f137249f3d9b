export * from './search-text';
export * from './search-query';
export * from './snippet';
export * from './bm25';
export * from './search-total';
export * from './search-limits';
export * from './stale-cursor';
