// Writes src/resources/types.ts: the resource types of @boxoffice/contract as plain interfaces,
// each field with the JSDoc written on it in the contract. The published declarations then need
// neither zod nor the contract, and a user's compiler does not instantiate zod's types to read them.
//
//   pnpm generate   (every generator of the repository; CI fails when a generated file is stale)
import { contractTypes, ts, writeGenerated } from '../../contract/scripts/contract-types.mjs';

const target = new URL('../src/resources/types.ts', import.meta.url);

/**
 * Interfaces the others extend, exported too (a user may page generically): [name, schema, side,
 * doc].
 */
const BASES = [
  [
    'PageParams',
    'PaginationQuerySchema',
    'input',
    'The paging parameters of the lists that page by cursor.',
  ],
];

/**
 * The contract's sets of values, each declared once as a type that the fields and filters holding
 * exactly that set name: [name, doc]; the schema is the name's `…Schema`.
 */
const ENUMS = [
  ['EventStatus', "An event's status."],
  ['TierStatus', "A ticket tier's status."],
  ['WritableTierStatus', 'The statuses a client may give a tier.'],
  ['OrderStatus', "An order's status."],
  ['TicketStatus', "A ticket's status."],
  ['CheckinDirection', 'Whether a check-in admitted or let out.'],
  ['PayoutStatus', "A payout's status."],
  ['WebhookEndpointStatus', "A webhook endpoint's status."],
  ['WebhookSubscription', 'What a webhook endpoint subscribes to: an event type, or `*` for all.'],
  ['ExportResource', 'The lists an export can copy.'],
  ['ExportFormat', "An export file's format."],
  ['ExportStatus', "An export's status."],
].map(([name, text]) => [name, `${name}Schema`, text]);

/**
 * [exported name, schema, side]: what the SDK receives (`output`) or sends (`input`). A type with
 * every field of one of the BASES, or of a type above it on its side, extends it (see `declare`).
 */
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
  ['CheckinBatchItemFields', 'CheckinBatchItemSchema', 'input'],
  ['CheckinBatchResult', 'CheckinBatchResultSchema', 'output'],
  ['Payout', 'PayoutSchema', 'output'],
  ['PayoutListParams', 'PayoutListQuerySchema', 'input'],
  ['WebhookEndpoint', 'WebhookEndpointSchema', 'output'],
  ['WebhookEndpointWithSecret', 'WebhookEndpointWithSecretSchema', 'output'],
  ['WebhookEndpointListParams', 'WebhookEndpointListQuerySchema', 'input'],
  ['WebhookEndpointCreateParams', 'WebhookEndpointCreateSchema', 'input'],
  ['WebhookEndpointUpdateParams', 'WebhookEndpointUpdateSchema', 'input'],
  ['Export', 'ExportSchema', 'output'],
  ['ExportListParams', 'ExportListQuerySchema', 'input'],
  // Each list's filters, as an export of it takes them; `exports.ts` pairs them with `resource`.
  ['EventExportFilters', 'EventExportFiltersSchema', 'input'],
  ['TierExportFilters', 'TierExportFiltersSchema', 'input'],
  ['OrderExportFilters', 'OrderExportFiltersSchema', 'input'],
  ['TicketExportFilters', 'TicketExportFiltersSchema', 'input'],
  ['AttendeeExportFilters', 'AttendeeExportFiltersSchema', 'input'],
  ['CheckinExportFilters', 'CheckinExportFiltersSchema', 'input'],
  ['PayoutExportFilters', 'PayoutExportFiltersSchema', 'input'],
  ['TestOrder', 'TestOrderSchema', 'output'],
  ['TestOrderCreateParams', 'TestOrderCreateSchema', 'input'],
  ['TestPayoutAdvanceParams', 'TestPayoutAdvanceSchema', 'input'],
  ['TestDataReset', 'TestDataResetSchema', 'output'],
];

/** Fields the contract gives no description: every field must have one, for the editors. */
const undocumented = [];

function generate() {
  const enums = ENUMS.map(([name, schema]) => [name, schema, 'output']);
  const { checker, aliases } = contractTypes([...enums, ...BASES, ...TYPES]);
  const F = ts.TypeFormatFlags;
  const flags = F.NoTruncation | F.UseSingleQuotesForStringLiteralType;
  const str = (type) => checker.typeToString(type, undefined, flags);

  /** The values of a set of string literal types, as one key. */
  const valuesKey = (types) =>
    types
      .map((t) => t.value)
      .sort()
      .join('|');
  const enumByValues = new Map(ENUMS.map(([name]) => [valuesKey(aliases.get(name).types), name]));
  /** The name of the enum that is exactly these members' string literals, if one is. */
  const enumOf = (members) => {
    const literals = members.filter((m) => m.isStringLiteral());
    return literals.length > 1 ? enumByValues.get(valuesKey(literals)) : undefined;
  };

  /** The resources the API returns, by their type: a field holding one names it. */
  const namedOutputs = new Map(
    TYPES.filter(([, , side]) => side === 'output').map(([name]) => [aliases.get(name), name]),
  );

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
      const named = enumOf(members);
      if (named) {
        const rest = members.filter((m) => !m.isStringLiteral());
        return [named, ...rest.map((m) => print(m, indent))].join(' | ');
      }
      // A list filter takes one value, an array of them or a comma-separated string; in TypeScript
      // the values are what matters, so `string` gives way to the values the array holds.
      const values = members
        .filter((m) => checker.isArrayType(m))
        .map((m) => checker.getTypeArguments(m)[0])
        .find((element) => element?.isUnion() && element.types.every((t) => t.isStringLiteral()));
      if (values && members.some((m) => m.flags & ts.TypeFlags.String)) {
        members = [...values.types, ...members.filter((m) => !(m.flags & ts.TypeFlags.String))];
        const valuesNamed = enumOf(values.types);
        if (valuesNamed) {
          const rest = members.filter((m) => !m.isStringLiteral());
          return [valuesNamed, ...rest.map((m) => print(m, indent))].join(' | ');
        }
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
    if (isObjectLiteral(type)) {
      // A resource inside another (an order's tickets) is named, not written out again.
      const named = namedOutputs.get(type);
      if (named && indent !== '') return named;
      return `{\n${fields(type, `${indent}  `)}${indent}}`;
    }
    return str(type);
  }

  // In the order the contract declares them (its shared filters first); the stamps resources share
  // (`created_at`, `updated_at`: resource-schema.ts) last, where `resourceSchema` puts them.
  const place = (symbol) => {
    const declaration = symbol.declarations?.[0];
    const file = declaration?.getSourceFile().fileName ?? '';
    return [file.endsWith('/resource-schema.ts') ? 1 : 0, file, declaration?.pos ?? 0];
  };
  const byPlace = (a, b) => {
    const [lastA, fileA, posA] = place(a);
    const [lastB, fileB, posB] = place(b);
    if (lastA !== lastB) return lastA - lastB;
    return fileA === fileB ? posA - posB : fileA < fileB ? -1 : 1;
  };

  /** Each field as written out: its JSDoc, name and type. */
  function fieldTexts(type, indent) {
    return [...type.getProperties()].sort(byPlace).map((property) => {
      const optional = (property.flags & ts.SymbolFlags.Optional) !== 0;
      const propertyType = checker.getTypeOfSymbol(property);
      return `${doc(property, indent)}${indent}${property.name}${optional ? '?' : ''}: ${print(propertyType, indent)};\n`;
    });
  }

  const fields = (type, indent) => fieldTexts(type, indent).join('');

  // An interface with every field of one declared before it (a base, or a type on its side: a test
  // order is an order, a batch's scan a check-in's creation), word for word (doc, optionality and
  // type), and more, extends the one with the most of them: the same type as written out.
  const written = [];
  const declare = (name, side, head) => {
    const own = fieldTexts(aliases.get(name), '  ');
    const [base] = written
      .filter(
        (other) =>
          (other.side === side || other.side === 'base') &&
          other.fields.length < own.length &&
          other.fields.every((field) => own.includes(field)),
      )
      .sort((a, b) => b.fields.length - a.fields.length);
    written.push({ name, side, fields: own });
    if (base === undefined) return `${head} {\n${own.join('')}}\n`;
    const rest = own.filter((field) => !base.fields.includes(field)).join('');
    return `${head} extends ${base.name} {\n${rest}}\n`;
  };

  const bases = BASES.map(([name, schema, , text]) =>
    declare(
      name,
      'base',
      `/** ${text} \`${schema}\` of @boxoffice/contract. */\nexport interface ${name}`,
    ),
  );
  const exported = TYPES.map(([name, schema, side]) => {
    const what = side === 'output' ? 'as the API returns it' : 'as the API accepts it';
    return declare(
      name,
      side,
      `/** \`${schema}\` of @boxoffice/contract, ${what}. */\nexport interface ${name}`,
    );
  });
  const declaredEnums = ENUMS.map(
    ([name, schema, text]) =>
      `/** ${text} \`${schema}\` of @boxoffice/contract. */\nexport type ${name} = ${str(aliases.get(name))};\n`,
  );
  const body = [...declaredEnums, ...bases, ...exported].join('\n');
  return `// Generated from @boxoffice/contract by scripts/generate-types.mjs: do not edit, run
// \`pnpm generate\` after changing the contract.

${body}`;
}

const text = generate();
if (undocumented.length > 0) {
  console.error(
    `Fields without a JSDoc comment in the contract: ${[...new Set(undocumented)].join(', ')}`,
  );
  process.exit(1);
}
await writeGenerated(target, text);
