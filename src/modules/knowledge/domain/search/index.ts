export * from './search-text';
export * from './search-query';
export * from './snippet';
export * from './bm25';
