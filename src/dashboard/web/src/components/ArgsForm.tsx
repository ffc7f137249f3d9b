import { useState, type ReactElement } from 'react';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
}

type Values = Record<string, string | boolean>;

const typeOf = (s: JsonSchema) => (Array.isArray(s.type) ? s.type[0] : s.type);

function initialValues(fields: Array<[string, JsonSchema]>): Values {
  return Object.fromEntries(
    fields.map(([k, s]) => [k, typeOf(s) === 'boolean' ? Boolean(s.default) : s.default !== undefined ? (typeof s.default === 'string' ? s.default : JSON.stringify(s.default)) : '']),
  );
}

/** The fields' values as arguments. @throws Error "arguments: …" for a field whose JSON does not parse. */
function argsOf(fields: Array<[string, JsonSchema]>, schema: JsonSchema | undefined, values: Values): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [k, s] of fields) {
    const v = values[k];
    if (v === '' && !schema?.required?.includes(k)) continue;
    const type = typeOf(s);
    try {
      if (type === 'boolean') args[k] = v;
      else if (type === 'number' || type === 'integer') args[k] = Number(v);
      else if (type === 'string') args[k] = v;
      else args[k] = JSON.parse(String(v));
    } catch (err) {
      throw new Error(`arguments: ${k}: ${(err as Error).message}`);
    }
  }
  return args;
}

/**
 * A tool's arguments: a field per property of its input schema (fields it cannot express take JSON), or — "Edit as
 * JSON" — the whole arguments object as JSON. `read()` gives the arguments or throws a one-line "arguments: …" error.
 */
export function useArgsForm(schema?: JsonSchema): { view: ReactElement; read: () => Record<string, unknown> } {
  const fields = Object.entries(schema?.properties ?? {});
  const [values, setValues] = useState<Values>(() => initialValues(fields));
  const [json, setJson] = useState<string>();
  const read = (): Record<string, unknown> => {
    if (json === undefined) return argsOf(fields, schema, values);
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (err) {
      throw new Error(`arguments: not valid JSON (${(err as Error).message})`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('arguments: expected a JSON object');
    return parsed as Record<string, unknown>;
  };
  const toJson = () => {
    let text = '{}';
    try {
      text = JSON.stringify(argsOf(fields, schema, values), null, 2);
    } catch {
      /* a field's JSON does not parse: start from an empty object */
    }
    setJson(text);
  };
  const view =
    json !== undefined ? (
      <div className="args">
        <label className="field">
          <span>arguments <span className="muted small">JSON object</span></span>
          <textarea name="args-json" rows={Math.min(12, Math.max(3, json.split('\n').length))} value={json} onChange={(e) => setJson(e.target.value)} spellCheck={false} />
        </label>
        <button type="button" className="link" onClick={() => setJson(undefined)}>Back to the fields</button>
      </div>
    ) : (
      <div className="args">
        {fields.map(([k, s]) => {
          const type = typeOf(s);
          return (
            <label key={k} className="field">
              <span>{k}{schema?.required?.includes(k) ? ' *' : ''} <span className="muted small">{type}{s.description ? ` — ${s.description}` : ''}</span></span>
              {type === 'boolean' ? (
                <input type="checkbox" checked={Boolean(values[k])} onChange={(e) => setValues({ ...values, [k]: e.target.checked })} />
              ) : type === 'number' || type === 'integer' || type === 'string' ? (
                <input name={k} type={type === 'string' ? 'text' : 'number'} value={String(values[k] ?? '')} onChange={(e) => setValues({ ...values, [k]: e.target.value })} />
              ) : (
                <textarea name={k} rows={3} value={String(values[k] ?? '')} placeholder="JSON" onChange={(e) => setValues({ ...values, [k]: e.target.value })} />
              )}
            </label>
          );
        })}
        <button type="button" className="link" onClick={toJson}>Edit as JSON</button>
      </div>
    );
  return { view, read };
}
