export { GraphHost, loadGraph, expandGraphPaths, type LoadGraphOptions, type GraphLoadFailure } from './graph-host';
export { GraphFileLoader, validateGraphFile, graphSchemaPath, type GraphFileProblem } from './graph-file-loader';
export { parseGraphDocument, type GraphDocument } from './graph-document';
