export * from './ndjson-knowledge-store';
export * from './knowledge-files';
export * from './random-id-generator';
