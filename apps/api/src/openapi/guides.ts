import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_BASE_PATH, contract } from '@boxoffice/contract';
import type { AppRoute } from '@ts-rest/core';
import { OPERATIONS } from './operations';
import { SERVER_URL_PLACEHOLDER } from './server-url';

/**
 * What the API reference at `/docs` shows besides the operations: the guides of docs/api.md as
 * the document's `info.description`, a description per tag, and SDK and curl samples per
 * operation (`x-codeSamples`).
 *
 * The guides are read from docs/api.md itself, once, when the document is first built, so the
 * reference and the hand-written page cannot drift apart. The built server finds its copy beside
 * the bundle (tsdown.config.ts copies it into dist/docs/, and the image carries dist/ whole).
 */

/** The hand-written reference, relative to the repository root and to the built server's dir. */
export const API_GUIDE = 'docs/api.md';

/**
 * Where docs/api.md is looked for, in this order: beside the built server (dist/docs/api.md,
 * copied there by the build), then in the repository when running from sources (tsx, vitest),
 * where this module is apps/api/src/openapi/.
 */
function apiGuideCandidates(moduleDir: string): string[] {
  return [path.join(moduleDir, API_GUIDE), path.resolve(moduleDir, '../../../..', API_GUIDE)];
}

const moduleDir = path.dirname(fileURLToPath(import.meta.url));

/** The path of docs/api.md, or undefined when none of the candidates exists. */
export function locateApiGuide(dir: string = moduleDir): string | undefined {
  return apiGuideCandidates(dir).find((candidate) => existsSync(candidate));
}

export interface ReferenceGuides {
  description: string;
  /** `x-displayName`: what the reference shows for the tag (`checkins` → Check-ins). */
  tags: Array<{ name: string; description: string; 'x-displayName': string }>;
}

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

/* ----------------------------------------------------------------------------------------------
 * The guides
 * -------------------------------------------------------------------------------------------- */

/**
 * Sections of docs/api.md left out of the description because they only list the endpoints,
 * which the reference shows as operations. Their `###` subsections are guides, and are kept.
 */
export const ENDPOINT_LISTS: ReadonlySet<string> = new Set(['Endpoints']);

const FENCE = /^\s*(`{3,}|~{3,})/;
const HEADING = /^(#{1,6})(\s.*)$/;

/** For each line of `markdown`, whether it is prose: not inside or opening a fenced code block. */
function proseLines(lines: string[]): boolean[] {
  let fence: string | undefined;
  return lines.map((line) => {
    const marker = FENCE.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return false;
    }
    if (marker) fence = marker;
    return !marker;
  });
}

/** Raises every heading by `levels` (`##` → `#` for 1), never above `#`; code is left alone. */
function raiseHeadings(markdown: string, levels: number): string {
  const lines = markdown.split('\n');
  const prose = proseLines(lines);
  return lines
    .map((line, i) =>
      prose[i]
        ? line.replace(
            HEADING,
            (_heading, hashes: string, text: string) =>
              '#'.repeat(Math.max(1, hashes.length - levels)) + text,
          )
        : line,
    )
    .join('\n');
}

/** The text of `lines` cut at the lines where `starts`, each piece from its start line on. */
function cut(lines: string[], starts: number[]): string[] {
  return starts.map((start, i) =>
    lines
      .slice(start, starts[i + 1] ?? lines.length)
      .join('\n')
      .trim(),
  );
}

/** The indices of the prose lines of `lines` that are headings of exactly `depth`. */
function headingsOf(lines: string[], depth: number): number[] {
  const prose = proseLines(lines);
  const pattern = new RegExp(`^#{${depth}}\\s`);
  return lines.flatMap((line, i) => (prose[i] && pattern.test(line) ? [i] : []));
}

export interface GuideSection {
  /** The `##` heading's text. */
  title: string;
  /** The text between the heading and its first `###` subsection. */
  lead: string;
  /** The `###` subsections, each from its heading line on. */
  subsections: string[];
  /** The whole section, heading line included. */
  text: string;
}

/** The `##` sections of docs/api.md; what comes before the first (its title and preface) is not one. */
export function guideSections(markdown: string): GuideSection[] {
  const lines = markdown.split('\n');
  return cut(lines, headingsOf(lines, 2)).map((text) => {
    const sectionLines = text.split('\n');
    const [heading = ''] = sectionLines;
    const subsections = headingsOf(sectionLines, 3);
    return {
      title: heading.replace(/^##\s+/, '').trim(),
      lead: sectionLines
        .slice(1, subsections[0] ?? sectionLines.length)
        .join('\n')
        .trim(),
      subsections: cut(sectionLines, subsections),
      text,
    };
  });
}

/**
 * docs/api.md's guides, one `#` heading each, as Scalar wants them: it makes an entry in the
 * navigation of every heading of the description's highest level, and one below it of every
 * heading one level lower (a Pagination → Syncing); deeper headings get none. A list of endpoints
 * is left out, its subsections (check-ins, idempotency) becoming guides of their own.
 */
function guidesMarkdown(apiGuide: string): string {
  return guideSections(apiGuide)
    .flatMap((section) =>
      ENDPOINT_LISTS.has(section.title)
        ? section.subsections.map((subsection) => raiseHeadings(subsection, 2))
        : [raiseHeadings(section.text, 1)],
    )
    .join('\n\n');
}

const INTRODUCTION = `# Introduction

The Boxoffice API v1 gives programs the organisation's events, ticket tiers, orders, tickets,
attendees, check-ins, payouts and webhook endpoints, as JSON over HTTPS under \`${API_BASE_PATH}\`.
Every operation is listed in this reference with its parameters, its answers and samples in
TypeScript (the Boxoffice SDK) and curl; the guides here describe the behaviour around them, which
the schemas cannot say. The samples call this server, at \`${SERVER_URL_PLACEHOLDER}\`.`;

/**
 * The client of every TypeScript sample. It reads the key from the environment itself, so a sample
 * needs no Node types (`tsc --init` leaves them out) and matches the curl samples'.
 */
const SDK_CLIENT = `// The API key is read from the BOXOFFICE_API_KEY environment variable.
const client = new Boxoffice({ baseURL: '${SERVER_URL_PLACEHOLDER}' });`;

/** The quick start's TypeScript, type-checked against the SDK with the operations' samples. */
const QUICK_START_TYPESCRIPT = `import { Boxoffice } from '@boxoffice/sdk';

${SDK_CLIENT}

// Every published event: the loop follows the pages' cursors.
for await (const event of client.events.list({ status: 'published', limit: 100 })) {
  console.log(event.id, event.name, event.starts_at);
}

// At the door: admit a ticket by its id (or by its scanned barcode, \`code\`).
const checkin = await client.checkins.create({ ticket_id: 'tkt_…' });
console.log(checkin.direction, checkin.scanned_at);`;

function quickStart(): string {
  const list = curl('events.list', { status: 'published', limit: 100 });
  const checkIn = curl('checkins.create', { ticket_id: 'tkt_…' });
  return `# SDK quick start

The Boxoffice TypeScript SDK, \`@boxoffice/sdk\`, has a typed method per operation, retries that
respect \`Retry-After\`, throttling that keeps to the rate limits, pagination iterators and typed
errors. It runs on Node.js 20 or later, Bun, Deno and edge runtimes.

\`\`\`sh
npm install @boxoffice/sdk
\`\`\`

(Until its first release on npm, pack it from the Boxoffice repository with \`pnpm pack:sdk\` and
install the tarball: see the SDK's README.)

Set the \`BOXOFFICE_API_KEY\` environment variable to an API key with the \`read\` and
\`checkins:write\` scopes:

- **On a server started with \`pnpm start\`** in the Boxoffice repository, use the demo API key it
  prints: the demo organisation is on the Pro plan, with published events, tickets and check-ins.
  It prints a test key (\`bxo_test_…\`) too, for the organisation's test data, which the samples
  can change without touching the live data (see Test mode).
- **Otherwise**, make a key in the dashboard (Settings → API keys). API access needs the Pro plan:
  with a key of an organisation on the Free plan, where new ones start, every call answers
  **402 \`plan_required\`** (the SDK throws a \`PlanRequiredError\`) until the organisation is
  upgraded, in the dashboard under Settings → Plan, or by an operator with
  \`pnpm -s admin org set-plan org_… pro\`. A new organisation has no events yet: the list below
  prints nothing until you create some.

The samples are ES modules with top-level \`await\`: save the one below as \`quick-start.mts\` and run
it with \`npx tsx quick-start.mts\` (Node.js 24 runs it as it is: \`node quick-start.mts\`). The
\`.mts\` makes it an ES module in any project, including the CommonJS one \`npm init -y\` makes, where
a \`.ts\` file cannot use top-level \`await\`. \`tsc --init\` leaves Node's types out
(\`"types": []\`), which the SDK does not need; code of your own that reads \`process.env\` needs
\`npm install -D @types/node\` and \`"types": ["node"]\`. Then list the published events and check a
ticket in (a ticket id from \`client.tickets.list()\`):

\`\`\`ts
${QUICK_START_TYPESCRIPT}
\`\`\`

The same with curl (a list answers one page at a time: follow \`next_cursor\`, as Pagination
describes):

\`\`\`sh
${list}

${checkIn}
\`\`\``;
}

/** Each router's name as people write it. */
const TAG_TITLES: Record<string, string> = {
  events: 'Events',
  tiers: 'Ticket tiers',
  orders: 'Orders',
  tickets: 'Tickets',
  attendees: 'Attendees',
  checkins: 'Check-ins',
  payouts: 'Payouts',
  webhookEndpoints: 'Webhook endpoints',
  exports: 'Exports',
  testHelpers: 'Test helpers',
};

/** What docs/api.md's Resources section says of each, in a sentence or two, by router. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  events:
    'Events are what tickets are sold for: a name, a venue, a time zone, start and end times and a currency. An event goes `draft → published → completed`, or is `cancelled`; a cancelled or completed event is final.',
  tiers:
    "Ticket tiers are an event's kinds of ticket, each with a price in the event's currency and a quantity (unlimited when null). The server shows `sold_out` while an on-sale tier has sold its whole quantity.",
  orders:
    'Orders are the purchases made at the checkout, with their buyer and totals; they are read-only here. Cancelling or refunding a completed order voids its tickets and returns their seats to the tier.',
  tickets:
    'Tickets are the seats of orders, each with the barcode secret (`code`) a door scans; they are read-only here. A ticket is `valid`, `checked_in` while its holder is inside, or `void`.',
  attendees:
    'Attendees are the people the tickets are for, with the answers given at the checkout; they are read-only here. `checked_in` is true while their ticket is checked in.',
  checkins:
    'Check-ins are the scans at the door, entries and exits, recorded with the `checkins:write` scope, one to a request or up to 100 in a batch; they never change once made. "Checking tickets in" above gives the order of the checks, "Batch check-ins" what a batch answers.',
  payouts:
    "Payouts are the money paid out for an organisation's sales, less fees and refunds; they are read-only here. A payout goes `pending → in_transit → paid`, or ends `cancelled` or `failed`.",
  webhookEndpoints:
    "Webhook endpoints are the URLs every change of the organisation's data is pushed to; every route needs the `write` scope. The Webhooks guide above describes the requests, their signatures and the retries.",
  exports:
    "Exports copy a whole list, with that list's own filters, into one NDJSON or CSV file made in the background from one snapshot: the first sync of a large list without thousands of pages. The Exports guide above describes the file, its download and the hand-over to `updated_since`.",
  testHelpers:
    "Test helpers play the checkout's and the bank's part on the organisation's test data: sell a test order, refund it, move a payout on, start the test data again. They need a test key (`bxo_test_…`) with the `write` scope; a live key gets a 403 `test_mode_only`. The Testing your integration guide above shows them at work.",
};

/**
 * The document's description and tags, from the text of docs/api.md, or without its guides when
 * `apiGuide` is undefined (the file could not be found).
 */
export function buildReferenceGuides(apiGuide: string | undefined): ReferenceGuides {
  const guides =
    apiGuide === undefined
      ? '# Guides\n\nThe guides (authentication, rate limits, pagination, idempotency, webhooks, error codes…) are in `docs/api.md` of the Boxoffice repository: this server could not read its copy.'
      : guidesMarkdown(apiGuide);
  return {
    // Scalar adds an entry of its own, "Introduction", for text before the first heading, and
    // puts every heading under it: starting with a heading keeps the guides at the top level.
    description: [INTRODUCTION, quickStart(), guides].join('\n\n'),
    tags: Object.keys(contract).map((name) => ({
      name,
      'x-displayName': TAG_TITLES[name] ?? name,
      description: TAG_DESCRIPTIONS[name] ?? '',
    })),
  };
}

let built: ReferenceGuides | undefined;

/**
 * The description and tags of the OpenAPI document, docs/api.md read on the first call.
 *
 * Without docs/api.md (a build or an image that lost it: the build copies it, and a test checks
 * the built server finds it), the document is still served, without the guides and saying so, and
 * a process warning names the paths looked at: the operations, schemas and samples are the larger
 * part of the reference and stay right, so a missing guide should not cost clients the document.
 */
export function referenceGuides(): ReferenceGuides {
  if (!built) {
    const file = locateApiGuide();
    if (!file) {
      process.emitWarning(
        `${API_GUIDE} is in none of ${apiGuideCandidates(moduleDir).join(', ')}: the API reference is served without its guides`,
        { code: 'BOXOFFICE_API_GUIDE_MISSING' },
      );
    }
    built = buildReferenceGuides(file === undefined ? undefined : readFileSync(file, 'utf8'));
  }
  return built;
}

/* ----------------------------------------------------------------------------------------------
 * Code samples
 * -------------------------------------------------------------------------------------------- */

const routes = new Map<string, AppRoute>(OPERATIONS);

/** Ids as docs/api.md writes them: the type prefix, and an ellipsis for the rest. */
const EVENT_ID = 'evt_…';

/** The SDK's name for one item of each resource, and the fields a sample prints. */
const RESOURCES: Record<string, { item: string; id: string; shows: string[] }> = {
  events: { item: 'event', id: EVENT_ID, shows: ['id', 'name', 'starts_at'] },
  tiers: {
    item: 'tier',
    id: 'tier_…',
    shows: ['id', 'name', 'quantity_available'],
  },
  orders: {
    item: 'order',
    id: 'ord_…',
    shows: ['id', 'reference', 'total'],
  },
  tickets: { item: 'ticket', id: 'tkt_…', shows: ['id', 'code', 'status'] },
  attendees: {
    item: 'attendee',
    id: 'att_…',
    shows: ['last_name', 'checked_in'],
  },
  checkins: {
    item: 'checkin',
    id: 'chk_…',
    shows: ['ticket_id', 'direction'],
  },
  payouts: { item: 'payout', id: 'po_…', shows: ['id', 'amount', 'status'] },
  exports: { item: 'exp', id: 'exp_…', shows: ['id', 'status', 'row_count'] },
  webhookEndpoints: {
    item: 'endpoint',
    id: 'we_…',
    shows: ['id', 'url', 'status'],
  },
};

interface Call {
  /** The query of a list, or the body of a create or an update. */
  input?: Record<string, unknown>;
  /** A comment above the call: what to know when calling it. */
  note?: string;
  /**
   * An SDK method other than the route key on its router's resource (a test helper's), with the
   * `id` its path names, and what the sample prints of the answer.
   */
  sdk?: { method: string; id?: string; item: string; shows: string[] };
}

/**
 * Every operation's sample call, by operation key. Its route key is the SDK's method (`list`,
 * `get`, `create`, `update`, `delete`) on the resource of its router (`client.events`).
 */
const CALLS: Record<string, Call> = {
  'events.list': {
    input: { status: 'published', starts_after: '2026-06-01T00:00:00Z', limit: 100 },
    note: "Every match: the loop follows the pages' cursors.",
  },
  'events.get': {},
  'events.create': {
    input: {
      name: 'Riverside Jazz Night',
      timezone: 'Europe/London',
      starts_at: '2026-06-01T19:00:00+01:00',
      ends_at: '2026-06-01T23:00:00+01:00',
      currency: 'GBP',
      status: 'published',
    },
  },
  'events.update': {
    input: { status: 'published' },
    note: 'Status changes: draft → published → completed, or cancelled; others are a 409.',
  },
  'tiers.list': { input: { event_id: EVENT_ID, limit: 100 } },
  'tiers.get': {},
  'tiers.create': {
    input: { event_id: EVENT_ID, name: 'General admission', price: 2500, quantity_total: 300 },
    note: "`price` is in minor units of the event's currency: £25.00.",
  },
  'tiers.update': { input: { quantity_total: 350 } },
  'orders.list': { input: { event_id: EVENT_ID, status: 'completed', limit: 100 } },
  'orders.get': {},
  'tickets.list': { input: { event_id: EVENT_ID, status: 'valid', limit: 100 } },
  'tickets.get': {},
  'attendees.list': { input: { event_id: EVENT_ID, checked_in: true, limit: 100 } },
  'attendees.get': {},
  'checkins.list': {
    input: { event_id: EVENT_ID, since: '2026-06-01T18:00:00Z', limit: 100 },
  },
  'checkins.get': {},
  'checkins.create': {
    input: { code: '8fJ2kQ…', event_id: EVENT_ID, gate: 'North' },
    note: 'A ticket already inside is a ConflictError (409), code "already_checked_in".',
  },
  'checkins.createBatch': {
    input: {
      checkins: [
        { code: '8fJ2kQ…', gate: 'North', idempotency_key: 'north-1:41' },
        { code: 'Zp4Lm1…', gate: 'North', idempotency_key: 'north-1:42' },
      ],
    },
    note: 'Up to 100 scans, one write; a result per scan, refusals included.',
  },
  'payouts.list': { input: { status: 'paid' } },
  'payouts.get': {},
  'exports.create': {
    input: { resource: 'tickets', filters: { event_id: EVENT_ID }, format: 'csv' },
    note: "Poll it until it is ready; its sync_checkpoint then starts the list's updated_since sync.",
  },
  'exports.list': { input: { status: 'ready' } },
  'exports.get': {},
  'exports.file': {
    note: 'gzip-encoded on the wire when accepted; Range and If-Range resume a broken download. In the SDK, rows() streams an NDJSON file as typed objects.',
    sdk: { method: 'exports.download', id: 'exp_…', item: 'file', shows: ['status'] },
  },
  'webhookEndpoints.list': {},
  'webhookEndpoints.get': {},
  'webhookEndpoints.create': {
    input: { url: 'https://crm.example.com/boxoffice', events: ['order.created', 'order.updated'] },
    note: 'The answer carries the signing secret (whsec_…) this once: keep it for the receiver.',
  },
  'webhookEndpoints.update': { input: { status: 'disabled' } },
  'webhookEndpoints.delete': {},
  'testHelpers.createOrder': {
    input: { event_id: EVENT_ID, tier_id: 'tier_…', quantity: 2 },
    note: 'With a test key (bxo_test_…): the tickets come with their codes, ready to scan.',
    sdk: {
      method: 'testHelpers.orders.create',
      item: 'order',
      shows: ['id', 'tickets.map((ticket) => ticket.code)'],
    },
  },
  'testHelpers.refundOrder': {
    sdk: { method: 'testHelpers.orders.refund', id: 'ord_…', item: 'order', shows: ['status'] },
  },
  'testHelpers.advancePayout': {
    input: { fail: true },
    note: 'Without fail: pending → in_transit → paid, a step per call.',
    sdk: {
      method: 'testHelpers.payouts.advance',
      id: 'po_…',
      item: 'payout',
      shows: ['status', 'failure_reason'],
    },
  },
  'testHelpers.reset': {
    note: 'Deletes the test data and makes fresh sample data.',
    sdk: { method: 'testHelpers.reset', item: 'counts', shows: ['events', 'orders'] },
  },
};

/** The operation keys that have samples: every route of the contract, as a test checks. */
export const SAMPLED_OPERATIONS: readonly string[] = Object.keys(CALLS);

/** About what Scalar's code pane shows without scrolling, beside the operation at 1400 pixels. */
const SAMPLE_WIDTH = 60;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A value as a TypeScript literal, on one line. */
function literal(value: unknown): string {
  if (typeof value === 'string')
    return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).map(
      ([key, item]) => `${IDENTIFIER.test(key) ? key : literal(key)}: ${literal(item)}`,
    );
    return entries.length ? `{ ${entries.join(', ')} }` : '{}';
  }
  return String(value);
}

/** `head(args)tail` on one line when it fits the sample width, else one property per line. */
function callWith(head: string, args: unknown[], tail: string): string {
  const inline = `${head}(${args.map(literal).join(', ')})${tail}`;
  const last = args.at(-1);
  if (inline.length <= SAMPLE_WIDTH || !last || typeof last !== 'object') return inline;
  const leading = args.slice(0, -1).map((arg) => `${literal(arg)}, `);
  const properties = Object.entries(last).map(
    ([key, item]) => `  ${IDENTIFIER.test(key) ? key : literal(key)}: ${literal(item)},`,
  );
  return [`${head}(${leading.join('')}{`, ...properties, `})${tail}`].join('\n');
}

/** `text` as `//` comment lines that fit the sample width. */
function comment(text: string): string {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.at(-1);
    if (last !== undefined && `${last} ${word}`.length <= SAMPLE_WIDTH)
      lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(`// ${word}`);
  }
  return lines.map((line) => `${line}\n`).join('');
}

function typescript(key: string, call: Call): string {
  const [router = '', routeKey = ''] = key.split('.');
  const resource = call.sdk ?? RESOURCES[router];
  if (!resource) throw new Error(`no sample resource for ${key}`);
  const { item, id, shows } = resource;
  const target = `client.${call.sdk?.method ?? `${router}.${routeKey}`}`;
  // A helper's call is an action: its id, then its body if it takes one.
  const method = call.sdk ? 'action' : routeKey;
  const print = (name: string, indent = '') => {
    const parts = shows.map((field) => `${name}.${field}`);
    const inline = `${indent}console.log(${parts.join(', ')});`;
    if (inline.length <= SAMPLE_WIDTH) return inline;
    return [
      `${indent}console.log(`,
      ...parts.map((part) => `${indent}  ${part},`),
      `${indent});`,
    ].join('\n');
  };
  const input = call.input ?? {};
  let body: string;
  switch (method) {
    case 'list':
      body = `${callWith(`for await (const ${item} of ${target}`, Object.keys(input).length ? [input] : [], ') {')}\n${print(item, '  ')}\n}`;
      break;
    case 'get':
      body = `const ${item} = await ${target}('${id}');\n${print(item)}`;
      break;
    case 'create':
      body = `${callWith(`const ${item} = await ${target}`, [input], ';')}\n${print(item)}`;
      break;
    case 'update':
      body = `${callWith(`const ${item} = await ${target}`, [id, input], ';')}\n${print(item)}`;
      break;
    case 'delete':
      body = `await ${target}('${id}');`;
      break;
    case 'createBatch': {
      // The SDK takes the scans themselves, the body's `checkins`.
      const scans = (input.checkins ?? []) as unknown[];
      body = [
        `const results = await ${target}([`,
        ...scans.map((scan) => `  ${literal(scan)},`),
        ']);',
        'for (const result of results) console.log(result.status, result.code);',
      ].join('\n');
      break;
    }
    case 'action': {
      const args = [...(id === undefined ? [] : [id]), ...(call.input ? [call.input] : [])];
      body = `${callWith(`const ${item} = await ${target}`, args, ';')}\n${print(item)}`;
      break;
    }
    default:
      throw new Error(`no sample for the method of ${key}`);
  }
  return `import { Boxoffice } from '@boxoffice/sdk';

${SDK_CLIENT}

${call.note ? comment(call.note) : ''}${body}`;
}

/** A word quoted for a POSIX shell: single quotes, any of them inside closed and escaped. */
const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * The curl command of an operation, with `input` as its query (GET) or its JSON body, and `id` (by
 * default its resource's) in its path.
 */
function curl(key: string, input?: Record<string, unknown>, id?: string): string {
  const route = routes.get(key);
  if (!route) throw new Error(`no route for ${key}`);
  const pathname = route.path.replace(/:(\w+)/g, (_, name: string) => {
    const example = id ?? RESOURCES[key.split('.')[0] ?? '']?.id;
    if (name !== 'id' || example === undefined) {
      throw new Error(`no example for the path parameter ${name} of ${key}`);
    }
    return example;
  });
  const hasBody = (route.method === 'POST' || route.method === 'PATCH') && input !== undefined;
  const query = route.method === 'GET' ? Object.entries(input ?? {}) : [];
  // A query goes as `-G -d name=value`, one parameter a line, narrower than one long URL; a value
  // that is not safe in a URL as it is (a `+` of a time offset) is encoded by curl.
  const method = route.method === 'GET' ? (query.length ? '-G ' : '') : `-X ${route.method} `;
  const lines = [
    `curl ${method}${shellQuote(`${SERVER_URL_PLACEHOLDER}${pathname}`)}`,
    `-H "Authorization: Bearer $BOXOFFICE_API_KEY"`,
    ...query.map(([name, value]) => {
      const text = Array.isArray(value) ? value.join(',') : String(value);
      return /^[\w.~:,-]*$/.test(text)
        ? `-d ${name}=${text}`
        : `--data-urlencode ${shellQuote(`${name}=${text}`)}`;
    }),
  ];
  if (hasBody) lines.push(`-H 'Content-Type: application/json'`);
  // A retry with the same key is answered from the first attempt instead of writing twice.
  if (route.method === 'POST') lines.push('-H "Idempotency-Key: $(uuidgen)"');
  if (hasBody) {
    const compact = JSON.stringify(input);
    const json =
      compact.length <= SAMPLE_WIDTH - 8
        ? compact
        : JSON.stringify(input, null, 2).replaceAll('\n', '\n  ');
    lines.push(`-d ${shellQuote(json)}`);
  }
  return lines.join(' \\\n  ');
}

/**
 * The `x-codeSamples` of an operation, by operation key (`events.list`, `checkins.create`): the
 * SDK call and the curl command doing the same. None for a key the contract does not have.
 */
export function codeSamples(operationKey: string): CodeSample[] {
  const call = CALLS[operationKey];
  if (!call || !routes.has(operationKey)) return [];
  return [
    { lang: 'typescript', label: 'Boxoffice SDK', source: typescript(operationKey, call) },
    { lang: 'shell', label: 'curl', source: curl(operationKey, call.input, call.sdk?.id) },
  ];
}
