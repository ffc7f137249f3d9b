export * from './search-text';
export * from './search-query';
export * from './snippet';
export * from './idf';
export * from './impact';
export * from './search-total';
export * from './search-limits';
export * from './stale-cursor';
