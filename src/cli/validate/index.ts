import './graph-file-validator';
export { validateFiles, type FileProblem } from './validate-files';
export { registerGraphValidator, type GraphValidator, type FileProblemAt } from './graph-validators';
