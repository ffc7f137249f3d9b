/**
 * Compares the shape of two JSON Schemas: the property names of every object, the `type` of every property both
 * declare, enums and array items, with `$ref`s into each document's own `definitions` resolved. Constraints
 * (minLength, required, additionalProperties, …) may differ: a stored-file schema is stricter than the answer a tool
 * gives. Returns the differences as `path: what`, empty when the shapes agree.
 */
export type Schema = Record<string, unknown>;

export function shapeDifferences(a: Schema, aRoot: Schema, b: Schema, bRoot: Schema, path = '#'): string[] {
  const x = resolve(a, aRoot);
  const y = resolve(b, bRoot);
  const out: string[] = [];
  const tx = typesOf(x);
  const ty = typesOf(y);
  if (tx && ty && tx !== ty) out.push(`${path}: type ${tx} vs ${ty}`);
  if (x.enum && y.enum && JSON.stringify([...(x.enum as unknown[])].sort()) !== JSON.stringify([...(y.enum as unknown[])].sort())) {
    out.push(`${path}: enum ${JSON.stringify(x.enum)} vs ${JSON.stringify(y.enum)}`);
  }
  const px = x.properties as Record<string, Schema> | undefined;
  const py = y.properties as Record<string, Schema> | undefined;
  if (px || py) {
    const kx = Object.keys(px ?? {});
    const ky = Object.keys(py ?? {});
    for (const k of kx) if (!ky.includes(k)) out.push(`${path}/${k}: only in the first schema`);
    for (const k of ky) if (!kx.includes(k)) out.push(`${path}/${k}: only in the second schema`);
    for (const k of kx) if (ky.includes(k)) out.push(...shapeDifferences(px![k], aRoot, py![k], bRoot, `${path}/${k}`));
  }
  if (isSchema(x.items) && isSchema(y.items)) out.push(...shapeDifferences(x.items, aRoot, y.items, bRoot, `${path}/items`));
  return out;
}

function resolve(s: Schema, root: Schema): Schema {
  let cur = s;
  for (let i = 0; typeof cur.$ref === 'string' && i < 20; i++) {
    const name = (cur.$ref as string).replace(/^#\/(definitions|\$defs)\//, '');
    const defs = (root.definitions ?? root.$defs) as Record<string, Schema>;
    const { $ref: _ref, ...rest } = cur;
    cur = { ...defs[name], ...rest };
  }
  return cur;
}

function typesOf(s: Schema): string | undefined {
  if (s.type === undefined) return undefined;
  return ([] as unknown[]).concat(s.type).map(String).sort().join('|');
}

function isSchema(v: unknown): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
