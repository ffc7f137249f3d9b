export * from './safe-name';
export * from './atomic-write';
export { appendFully, appendLines, truncateFile, writeFully, type AppendOptions } from './write-fully';
export * from './file-lock';
export * from './project-layout';
export * from './storage-errors';
export * from './data-format';
export * from './locked-document';
export { makeDir, makeDirSync } from './make-dir';
