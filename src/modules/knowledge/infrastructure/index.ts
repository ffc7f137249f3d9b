export * from './ndjson-knowledge-store';
export * from './knowledge-files';
export * from '../../../kernel/random-id-generator';
