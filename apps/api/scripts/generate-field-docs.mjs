// Writes src/openapi/field-docs.ts: the JSDoc written on each field of the contract's schemas, by
// schema and field, for the OpenAPI document. zod keeps no comments at run time, and the contract's
// JSDoc is the one place a field is described (the SDK's types carry the same text).
//
//   pnpm generate   (every generator of the repository; CI fails when a generated file is stale)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  contractSrc,
  contractTypes,
  ts,
  writeGenerated,
} from '../../../packages/contract/scripts/contract-types.mjs';

const target = new URL('../src/openapi/field-docs.ts', import.meta.url);

/**
 * Schemas whose fields others repeat (lists page alike; an endpoint with its secret is one; a scan
 * of a batch is a check-in's creation).
 */
const SHARED = [
  'PaginationQuerySchema',
  'OrderSchema',
  'WebhookEndpointSchema',
  'CheckinCreateSchema',
];

/** Every exported `…Schema` of the contract whose fields are documented. */
function schemaNames() {
  const names = new Set();
  for (const file of ['index.ts']) {
    const text = readFileSync(join(contractSrc, file), 'utf8');
    for (const match of text.matchAll(/export \* from '\.\/([a-z-]+)'/g)) {
      const module = readFileSync(join(contractSrc, `${match[1]}.ts`), 'utf8');
      for (const m of module.matchAll(/export const ([A-Za-z]+Schema)\b/g)) names.add(m[1]);
    }
  }
  return [...names].sort();
}

function generate() {
  const names = schemaNames();
  const { checker, aliases } = contractTypes(
    names.map((name) => [name, name, /Create|Update|Query/.test(name) ? 'input' : 'output']),
  );

  // An intersection too: a `passthrough()` object is its fields and an index signature.
  const isObjectLiteral = (type) =>
    (type.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection)) !== 0 &&
    !checker.isArrayType(type) &&
    type.getCallSignatures().length === 0 &&
    type.symbol?.name !== 'Date' &&
    type.getProperties().length > 0;

  /** The object types a field's type holds: itself, an array's elements, a union's members. */
  const objectsIn = (type) => {
    if (type.isUnion()) return type.types.flatMap(objectsIn);
    if (checker.isArrayType(type)) return objectsIn(checker.getTypeArguments(type)[0]);
    return isObjectLiteral(type) ? [type] : [];
  };

  /** `field` or `field.nested` (arrays are passed through) → its JSDoc text. */
  const collect = (type, prefix, out, depth = 0) => {
    for (const property of type.getProperties()) {
      const path = `${prefix}${property.name}`;
      // JSDoc lines are wrapped for the source; a description flows as one paragraph.
      const text = ts
        .displayPartsToString(property.getDocumentationComment(checker))
        .trim()
        .replace(/(?<!\n)\n(?!\n)/g, ' ');
      if (text) out[path] = text;
      if (depth < 3) {
        for (const inner of objectsIn(checker.getTypeOfSymbol(property))) {
          collect(inner, `${path}.`, out, depth + 1);
        }
      }
    }
    return out;
  };

  const docs = {};
  for (const [name, type] of aliases) {
    const objects = objectsIn(type);
    if (objects.length !== 1) continue;
    const fields = collect(objects[0], '', {});
    if (Object.keys(fields).length > 0) docs[name] = fields;
  }

  // A schema with every field of a shared one, word for word, spreads it instead of repeating it.
  const shared = SHARED.filter((name) => name in docs);
  const entry = (name) => {
    const fields = docs[name];
    const base = shared.find(
      (other) =>
        other !== name && Object.entries(docs[other]).every(([key, text]) => fields[key] === text),
    );
    const own = Object.entries(fields).filter(([key]) => !base || !(key in docs[base]));
    const parts = own.map(([key, text]) => `${JSON.stringify(key)}: ${JSON.stringify(text)}`);
    return `{${[...(base ? [`...${base}`] : []), ...parts].join(',')}}`;
  };
  const consts = shared.map((name) => `const ${name} = ${entry(name)};\n`).join('');
  const table = Object.keys(docs)
    .map((name) => (shared.includes(name) ? name : `${name}: ${entry(name)}`))
    .join(',');
  return `// Generated from @boxoffice/contract by scripts/generate-field-docs.mjs: do not edit, run
// \`pnpm generate\` after changing the contract.

${consts}
/** The contract's JSDoc by schema (its export name) and field (\`a.b\` for a nested one). */
export const FIELD_DOCS: Readonly<Record<string, Readonly<Record<string, string>>>> = {${table}};
`;
}

await writeGenerated(target, generate());
