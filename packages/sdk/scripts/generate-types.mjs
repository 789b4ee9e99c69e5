// Writes src/resources/types.ts: the resource types of @boxoffice/contract as plain interfaces,
// each field with the JSDoc written on it in the contract. The published declarations then need
// neither zod nor the contract, and a user's compiler does not instantiate zod's types to read them.
//
//   pnpm generate   (every generator of the repository; CI fails when a generated file is stale)
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contractTypes, ts } from '../../contract/scripts/contract-types.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const sdk = resolve(here, '..');
const target = join(sdk, 'src/resources/types.ts');

/** [exported name, schema, side]: what the SDK receives (`output`) or sends (`input`). */
const TYPES = [
  ['Event', 'EventSchema', 'output'],
  ['EventListParams', 'EventListQuerySchema', 'input'],
  ['EventCreateParams', 'EventCreateSchema', 'input'],
  ['EventUpdateParams', 'EventUpdateSchema', 'input'],
  ['Tier', 'TierSchema', 'output'],
  ['TierListParams', 'TierListQuerySchema', 'input'],
  ['TierCreateParams', 'TierCreateSchema', 'input'],
  ['TierUpdateParams', 'TierUpdateSchema', 'input'],
  ['Order', 'OrderSchema', 'output'],
  ['OrderListParams', 'OrderListQuerySchema', 'input'],
  ['Ticket', 'TicketSchema', 'output'],
  ['TicketListParams', 'TicketListQuerySchema', 'input'],
  ['Attendee', 'AttendeeSchema', 'output'],
  ['AttendeeListParams', 'AttendeeListQuerySchema', 'input'],
  ['Checkin', 'CheckinSchema', 'output'],
  ['CheckinListParams', 'CheckinListQuerySchema', 'input'],
  // `checkins.ts` makes exactly one of `ticket_id` and `code` required.
  ['CheckinCreateFields', 'CheckinCreateSchema', 'input'],
  ['Payout', 'PayoutSchema', 'output'],
  ['PayoutListParams', 'PayoutListQuerySchema', 'input'],
  ['WebhookEndpoint', 'WebhookEndpointSchema', 'output'],
  ['WebhookEndpointWithSecret', 'WebhookEndpointWithSecretSchema', 'output'],
  ['WebhookEndpointListParams', 'WebhookEndpointListQuerySchema', 'input'],
  ['WebhookEndpointCreateParams', 'WebhookEndpointCreateSchema', 'input'],
  ['WebhookEndpointUpdateParams', 'WebhookEndpointUpdateSchema', 'input'],
];

/** Fields the contract gives no description: every field must have one, for the editors. */
const undocumented = [];

function generate() {
  const { checker, aliases } = contractTypes(TYPES);
  const F = ts.TypeFormatFlags;
  const flags = F.NoTruncation | F.UseSingleQuotesForStringLiteralType;
  const str = (type) => checker.typeToString(type, undefined, flags);

  const isObjectLiteral = (type) =>
    (type.flags & ts.TypeFlags.Object) !== 0 &&
    !checker.isArrayType(type) &&
    type.getCallSignatures().length === 0 &&
    type.symbol?.name !== 'Date' &&
    type.getProperties().length > 0;

  const doc = (symbol, indent) => {
    const text = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
    if (!text) undocumented.push(symbol.name);
    const tags = symbol
      .getJsDocTags(checker)
      .map((tag) => `@${tag.name}${tag.text ? ` ${ts.displayPartsToString(tag.text)}` : ''}`);
    const lines = [...(text ? text.split('\n') : []), ...tags];
    if (lines.length === 0) return '';
    const single = `${indent}/** ${lines[0]} */\n`;
    if (lines.length === 1 && single.length <= 101) return single;
    return `${indent}/**\n${lines.map((line) => `${indent} * ${line}`.trimEnd()).join('\n')}\n${indent} */\n`;
  };

  function print(type, indent) {
    if (type.isUnion()) {
      let members = type.types;
      // A list filter takes one value, an array of them or a comma-separated string; in TypeScript
      // the values are what matters, so `string` gives way to the values the array holds.
      const values = members
        .filter((m) => checker.isArrayType(m))
        .map((m) => checker.getTypeArguments(m)[0])
        .find((element) => element?.isUnion() && element.types.every((t) => t.isStringLiteral()));
      if (values && members.some((m) => m.flags & ts.TypeFlags.String)) {
        members = [...values.types, ...members.filter((m) => !(m.flags & ts.TypeFlags.String))];
      } else if (!members.some(isObjectLiteral) && !members.some((m) => checker.isArrayType(m))) {
        return str(type);
      }
      const parts = [];
      for (const member of members) {
        if (member.flags & ts.TypeFlags.BooleanLiteral) {
          if (!parts.includes('boolean')) parts.push('boolean');
        } else parts.push(print(member, indent));
      }
      return parts.join(' | ');
    }
    if (checker.isArrayType(type)) {
      const element = checker.getTypeArguments(type)[0];
      return `Array<${print(element, indent)}>`;
    }
    if (isObjectLiteral(type)) return `{\n${fields(type, `${indent}  `)}${indent}}`;
    return str(type);
  }

  // In the order the contract declares them (its shared fields first).
  const place = (symbol) => {
    const declaration = symbol.declarations?.[0];
    return declaration ? [declaration.getSourceFile().fileName, declaration.pos] : ['', 0];
  };
  const byPlace = (a, b) => {
    const [fileA, posA] = place(a);
    const [fileB, posB] = place(b);
    return fileA === fileB ? posA - posB : fileA < fileB ? -1 : 1;
  };

  function fields(type, indent) {
    return [...type.getProperties()]
      .sort(byPlace)
      .map((property) => {
        const optional = (property.flags & ts.SymbolFlags.Optional) !== 0;
        const propertyType = checker.getTypeOfSymbol(property);
        return `${doc(property, indent)}${indent}${property.name}${optional ? '?' : ''}: ${print(propertyType, indent)};\n`;
      })
      .join('');
  }

  const body = TYPES.map(([name, schema, side]) => {
    const type = aliases.get(name);
    const what = side === 'output' ? 'as the API returns it' : 'as the API accepts it';
    return `/** \`${schema}\` of @boxoffice/contract, ${what}. */\nexport interface ${name} {\n${fields(type, '  ')}}\n`;
  }).join('\n');
  return `// Generated from @boxoffice/contract by scripts/generate-types.mjs: do not edit, run
// \`pnpm generate\` after changing the contract.

${body}`;
}

const prettier = await import('prettier');
const config = (await prettier.resolveConfig(target)) ?? {};
const text = await prettier.format(generate(), { ...config, filepath: target });
if (undocumented.length > 0) {
  console.error(
    `Fields without a JSDoc comment in the contract: ${[...new Set(undocumented)].join(', ')}`,
  );
  process.exit(1);
}
writeFileSync(target, text);
console.log(`wrote ${target}`);
