import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { contract } from '@boxoffice/contract';
import { describe, expect, it } from 'vitest';
import { checkAsNewProject } from '../../../../packages/sdk/scripts/new-project-check.mjs';
import { buildOpenApiDocument } from './document';
import { OPERATIONS } from './operations';
import { SERVER_URL_PLACEHOLDER } from './server-url';
import {
  API_GUIDE,
  buildReferenceGuides,
  codeSamples,
  ENDPOINT_LISTS,
  guideSections,
  locateApiGuide,
  referenceGuides,
  SAMPLED_OPERATIONS,
} from './guides';

const apiRoot = fileURLToPath(new URL('../..', import.meta.url));
const repoRoot = path.resolve(apiRoot, '../..');
const source = await readFile(path.join(repoRoot, API_GUIDE), 'utf8');

const routes = OPERATIONS;

/** The headings of some Markdown outside its code blocks, as `[depth, text]`. */
function headings(markdown: string): Array<[number, string]> {
  let fenced = false;
  return markdown.split('\n').flatMap((line): Array<[number, string]> => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const match = fenced ? null : /^(#{1,6})\s+(.*)$/.exec(line);
    return match ? [[match[1]!.length, match[2]!]] : [];
  });
}

/** A section as the description should carry it: every heading one level up. */
const raised = (text: string, levels: number): string =>
  text.replace(/^(#{2,6})(?= )/gm, (hashes) => hashes.slice(levels));

describe('referenceGuides', () => {
  const { description, tags } = referenceGuides();

  it('reads docs/api.md from the repository when running from sources', () => {
    expect(locateApiGuide()).toBe(path.join(repoRoot, API_GUIDE));
    expect(referenceGuides()).toBe(referenceGuides());
  });

  it('carries every guide of docs/api.md, one navigation entry each', () => {
    const sections = guideSections(source);
    // The guides the reference must keep, whatever else docs/api.md gains.
    const titles = sections.map((section) => section.title);
    for (const guide of [
      'Conventions',
      'Authentication and access',
      'Rate limits',
      'Pagination',
      'Filters',
      'Request bodies',
      'Change records',
      'Webhooks',
      'Status codes and error codes',
    ]) {
      expect(titles).toContain(guide);
    }
    const expected: string[] = [];
    for (const section of sections) {
      if (ENDPOINT_LISTS.has(section.title)) {
        // Left out: it lists the endpoints and nothing else, which the operations show.
        const prose = section.lead.split('\n').filter((line) => line.trim() && !/^\|/.test(line));
        expect(prose, `the lead of "${section.title}"`).toEqual([]);
        for (const subsection of section.subsections) {
          expect(description).toContain(raised(subsection, 2));
          expected.push(headings(subsection)[0]![1]);
        }
      } else {
        expect(description).toContain(raised(section.text, 1));
        expected.push(section.title);
      }
    }
    expect(expected).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Checking tickets in/),
        expect.stringMatching(/^Idempotency/),
      ]),
    );
    for (const title of ENDPOINT_LISTS) expect(titles).toContain(title);

    // Scalar makes an entry of each heading of the description's highest level, and a child entry
    // of each one level below; text before the first heading would put them all under an
    // "Introduction" entry of its own.
    expect(description.startsWith('# ')).toBe(true);
    const levels = headings(description);
    expect(levels.filter(([depth]) => depth === 1).map(([, text]) => text)).toEqual([
      'Introduction',
      'SDK quick start',
      ...expected,
    ]);
    expect(levels.filter(([depth]) => depth > 1)).toEqual([[2, 'Syncing']]);
  });

  it('starts with the SDK quick start, beside curl', () => {
    const quickStart = description.slice(
      description.indexOf('# SDK quick start'),
      description.indexOf('\n# ', description.indexOf('# SDK quick start')),
    );
    expect(quickStart).toContain('npm install @boxoffice/sdk');
    expect(quickStart).toContain(`new Boxoffice({ baseURL: '${SERVER_URL_PLACEHOLDER}' })`);
    const prose = quickStart.replace(/\s+/g, ' ');
    // What a new TypeScript project needs before the sample runs: an ES module file.
    expect(prose).toContain('save the one below as `quick-start.mts`');
    expect(quickStart).toContain('BOXOFFICE_API_KEY');
    // A key that works: the demo's, or one of an organisation on the Pro plan.
    expect(prose).toContain('use the demo API key it prints');
    expect(prose).toContain('**402 `plan_required`**');
    expect(prose).toContain('pnpm -s admin org set-plan org_… pro');
    expect(quickStart).toMatch(/for await \(const event of client\.events\.list\(/);
    expect(quickStart).toContain('await client.checkins.create({ ticket_id: ');
    expect(quickStart).toContain(`curl -G '${SERVER_URL_PLACEHOLDER}/events'`);
    expect(quickStart).toContain(`curl -X POST '${SERVER_URL_PLACEHOLDER}/checkins'`);
  });

  it('describes one tag per router, named as the document tags its operations', async () => {
    const document = (await buildOpenApiDocument('0.0.0')) as {
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    const used = new Set(
      Object.values(document.paths).flatMap((item) =>
        Object.values(item).flatMap((operation) => operation.tags ?? []),
      ),
    );
    expect(tags.map((tag) => tag.name)).toEqual(Object.keys(contract));
    expect(new Set(tags.map((tag) => tag.name))).toEqual(used);
    for (const tag of tags) {
      expect(tag.description, tag.name).toMatch(/^[A-Z].{40,}\.$/s);
      expect(tag['x-displayName'], tag.name).toMatch(/^[A-Z][a-z -]+$/);
    }
  });

  it('without docs/api.md, still describes the API and says where the guides are', () => {
    const degraded = buildReferenceGuides(undefined);
    expect(degraded.description).toContain('# SDK quick start');
    expect(degraded.description).toContain('`docs/api.md`');
    expect(degraded.tags).toEqual(tags);
  });
});

/** The SDK groups the test helpers by what they act on; every other call is its route's key. */
const SDK_METHODS: Readonly<Record<string, string>> = {
  'testHelpers.createOrder': 'testHelpers.orders.create',
  'testHelpers.refundOrder': 'testHelpers.orders.refund',
  'testHelpers.advancePayout': 'testHelpers.payouts.advance',
  'exports.file': 'exports.download',
};

describe('codeSamples', () => {
  it('has an SDK and a curl sample for every operation of the contract', async () => {
    const document = (await buildOpenApiDocument('0.0.0')) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const operationIds = Object.values(document.paths).flatMap((item) =>
      Object.values(item).map((operation) => operation.operationId),
    );
    // The generator's operation ids are the keys codeSamples is called with.
    expect(operationIds.sort()).toEqual(routes.map(([key]) => key).sort());
    expect([...SAMPLED_OPERATIONS].sort()).toEqual(routes.map(([key]) => key).sort());

    for (const [key, route] of routes) {
      const samples = codeSamples(key);
      expect(samples.map((sample) => [sample.lang, sample.label])).toEqual([
        ['typescript', 'Boxoffice SDK'],
        ['shell', 'curl'],
      ]);
      const [sdk, curl] = samples;
      expect(sdk!.source).toContain(`client.${SDK_METHODS[key] ?? key}(`);
      const url = route.path.replace(':id', '[a-z]+_…');
      const method = route.method === 'GET' ? '(-G )?' : `-X ${route.method} `;
      expect(curl!.source).toMatch(
        new RegExp(`^curl ${method}'\\{\\{server_url\\}\\}${url}' \\\\\n`),
      );
      expect(curl!.source).toContain('-H "Authorization: Bearer $BOXOFFICE_API_KEY"');
      expect(curl!.source.includes('Idempotency-Key'), key).toBe(route.method === 'POST');
    }
    expect(codeSamples('events.archive')).toEqual([]);
  });

  it('type-checks every TypeScript sample, the quick start included, against the SDK', () => {
    const dir = path.join(apiRoot, 'src', 'openapi', '__samples__');
    const quickStart = [...referenceGuides().description.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map(
      (match) => match[1]!,
    );
    expect(quickStart).toHaveLength(1);
    const samples = new Map<string, string>([
      [path.join(dir, 'quick-start.mts'), quickStart[0]!],
      ...routes.map(([key]): [string, string] => [
        path.join(dir, `${key}.ts`),
        codeSamples(key)[0]!.source,
      ]),
    ]);
    // The check must catch a wrong method and a wrong argument, or it proves nothing.
    const wrong = path.join(dir, 'wrong.ts');
    samples.set(
      wrong,
      "import { Boxoffice } from '@boxoffice/sdk';\nconst client = new Boxoffice();\nawait client.events.lst();\nawait client.checkins.create({ gate: 'North' });\n",
    );

    // The samples are files of apps/api as far as the compiler knows (so `@boxoffice/sdk` resolves
    // as there), checked as strictly as in a new project.
    const report = checkAsNewProject(path.join(apiRoot, 'tsconfig.json'), samples);

    const checked = [...samples.keys()].filter((file) => file !== wrong);
    expect(checked.map(report).join('')).toBe('');
    expect(report(wrong)).toMatch(/Property 'lst' does not exist/);
    expect(report(wrong)).toMatch(/wrong\.ts\(4,/);
  }, 60_000);
});

describe('the build', () => {
  it('puts docs/api.md where the built server finds it', async () => {
    // The package's own build (tsdown.config.ts), into a directory outside the repository, so
    // that only the copy beside the bundle can be found.
    const outDir = await mkdtemp(path.join(tmpdir(), 'boxoffice-api-build-'));
    try {
      await promisify(execFile)('pnpm', ['exec', 'tsdown', '--out-dir', outDir], {
        cwd: apiRoot,
      });
      const found = locateApiGuide(outDir);
      expect(found).toBe(path.join(outDir, API_GUIDE));
      expect(await readFile(found!, 'utf8')).toBe(source);
    } finally {
      await rm(outDir, { recursive: true, force: true });
    }
  }, 60_000);
});
