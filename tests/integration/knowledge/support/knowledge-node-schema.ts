import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

/** spec/knowledge-node.schema.json's stored node and deletion record, compiled: what every line on disk must be. */
const schema = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../../spec/knowledge-node.schema.json'), 'utf8'));
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(schema);
export const validStoredNode = ajv.compile({ $ref: `${schema.$id}#/definitions/storedNode` });
export const validRecord = ajv.compile({ $ref: `${schema.$id}#/definitions/deletedNode` });
