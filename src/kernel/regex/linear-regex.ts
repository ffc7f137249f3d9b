/**
 * Linear-time regular expressions; the implementation lives in ./regex (see its index.ts). This path is kept so
 * existing importers need not change.
 */
export * from './index';
