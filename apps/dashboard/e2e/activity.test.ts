import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations } from './accessibility';
import * as step from './steps';
import { browserSuite } from './suite';
import { startWebhookReceiver } from './webhook-receiver';

/**
 * API activity: requests this suite makes through the real API with two keys show up on the Logs
 * page (found by their request ID, filtered, paged, each with its details) and in the Usage
 * charts, and each key's count of the last 24 hours on the keys page; an export started on the
 * Exports page becomes ready and its file downloads; on a desktop and at 360 px, with nothing
 * serious or critical for axe-core.
 */

const account = {
  organisation: 'Lantern Theatre',
  email: `activity-${randomBytes(4).toString('hex')}@lantern.example`,
  password: 'correct horse battery',
};
const PHONE = 360;
const ERROR_CODES = '/docs#description/status-codes-and-error-codes';

const suite = browserSuite(
  'dashboard-activity',
  { viewport: { width: 1280, height: 800 } },
  (context, origin) => context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin }),
);
let page: Page;
let origin: string;

const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });
const activityLink = (name: string) =>
  page.getByRole('navigation', { name: 'API activity' }).getByRole('link', { name, exact: true });
const requestsTable = () => page.getByRole('region', { name: 'Requests, newest first' });
/** The address shown, without the origin. */
const address = () => {
  const url = new URL(page.url());
  return `${url.pathname}${url.search}`;
};

interface Answer {
  status: number;
  code?: string;
  requestId: string;
}

/** What the public API answered to a request made with `key`. */
async function call(key: string, path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(`${origin}/api/v1${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...(init.headers as Record<string, string> | undefined),
    },
  });
  const body = (await response.json()) as { code?: string };
  return {
    status: response.status,
    code: body.code,
    requestId: response.headers.get('x-request-id')!,
  };
}

/** Generates a key with `scopes` on the keys page: its secret. */
async function newKey(name: string, scopes: string[]): Promise<string> {
  await page.getByLabel('Key name').fill(name);
  for (const scope of ['read', 'write', 'checkins:write']) {
    await page
      .getByRole('checkbox', { name: scope, exact: true })
      .setChecked(scopes.includes(scope));
  }
  await page.getByRole('button', { name: 'Generate key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Your new API key' });
  const secret = await dialog.getByLabel('Secret key').inputValue();
  await dialog.getByRole('button', { name: 'Copy' }).click();
  await step.closeDialog(dialog);
  return secret;
}

/** The page fits a phone's width, and axe-core finds nothing serious there or on a desktop. */
async function checkPage(state: string): Promise<void> {
  for (const width of [1280, PHONE]) {
    await page.setViewportSize({ width, height: 800 });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    if (width === PHONE) {
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(wide, `${state} at ${width} px: page width`).toBeLessThanOrEqual(width);
    }
    expect
      .soft(await accessibilityViolations(page, ['serious', 'critical']), `${state} at ${width} px`)
      .toEqual([]);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** Pixels of `color` (a hex colour, give or take the canvas's smoothing) on the chart's canvas. */
const pixelsOf = (chart: Locator, color: string) =>
  chart.locator('canvas').evaluate((canvas: HTMLCanvasElement, hex) => {
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
    let found = 0;
    for (let i = 0; i < data.length; i += 4) {
      const near =
        Math.abs(data[i]! - r!) < 12 &&
        Math.abs(data[i + 1]! - g!) < 12 &&
        Math.abs(data[i + 2]! - b!) < 12;
      if (near && data[i + 3]! > 200) found++;
    }
    return found;
  }, color);

const findMe = `find-me-${randomBytes(6).toString('hex')}`;
let doorKey = '';
let syncKey = '';
/** Every answer, of both keys, in the order they were made. */
const answers: Answer[] = [];
let invalid: Answer;
const count = (match: (answer: Answer) => boolean) => answers.filter(match).length;

beforeAll(() => {
  ({ page, origin } = suite);
});

describe('API activity: logs and usage', () => {
  it('records the requests made with two keys, past the rate limit', async () => {
    await page.goto(`${origin}/dashboard/signin`);
    await step.openSignUp(page);
    await step.submitSignUp(page, account);
    await heading('API keys').waitFor();
    await step.openPlan(page, 'Free');
    await step.upgradeToPro(page);
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await heading('API keys').waitFor();
    doorKey = await newKey('Door app', ['read', 'write']);
    syncKey = await newKey('Nightly sync', ['read']);

    answers.push(await call(doorKey, '/events', { headers: { 'x-request-id': findMe } }));
    expect(answers[0]).toMatchObject({ status: 200, requestId: findMe });
    answers.push(await call(doorKey, '/events/evt_missing'));
    invalid = await call(doorKey, '/events', {
      method: 'POST',
      body: JSON.stringify({ name: '' }),
    });
    answers.push(invalid);
    expect(invalid.status).toBe(400);
    // Past the key's 60 reads a minute: the last ones are refused with 429.
    for (let i = 0; i < 62; i++) answers.push(await call(doorKey, '/events?limit=1'));
    for (let i = 0; i < 3; i++) answers.push(await call(syncKey, '/events?limit=2'));
    expect(count((answer) => answer.status === 429)).toBeGreaterThan(0);
    expect(answers.length).toBeGreaterThan(50);
  });

  it('finds a request by its ID, and the link to the search finds it again', async () => {
    await activityLink('Logs').click();
    await heading('Logs').waitFor();
    // The log is written a moment after the answers: refresh until the last one is in.
    const newest = answers.at(-1)!.requestId;
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return requestsTable().getByText(newest, { exact: true }).count();
        },
        { timeout: 15_000 },
      )
      .toBe(1);
    await checkPage('logs');

    await page.getByLabel('Request ID').fill(findMe);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(address).toBe(`/dashboard/logs?request_id=${findMe}`);
    const rows = requestsTable().getByRole('row');
    await expect.poll(() => rows.count()).toBe(2);
    await rows.filter({ hasText: findMe }).getByText('GET /events', { exact: true }).waitFor();
    await rows.filter({ hasText: findMe }).getByText('200', { exact: true }).waitFor();

    // The address is the search: opened afresh, it shows the same.
    await page.goto(`${origin}/dashboard/logs?request_id=${findMe}`);
    await heading('Logs').waitFor();
    await expect.poll(() => rows.count()).toBe(2);
    expect(await page.getByLabel('Request ID').inputValue()).toBe(findMe);
    await rows.filter({ hasText: findMe }).waitFor();
  });

  it('pages the list, newest first, and filters it by status and key in the address', async () => {
    await page.goto(`${origin}/dashboard/logs`);
    const rows = requestsTable().getByRole('row');
    await expect.poll(() => rows.count()).toBe(51);
    // Newest first: the last request made leads the list.
    expect(await rows.nth(1).textContent()).toContain(answers.at(-1)!.requestId);
    await page.getByRole('link', { name: 'Older', exact: true }).click();
    await expect.poll(() => rows.count()).toBe(answers.length - 50 + 1);
    expect(new URL(page.url()).searchParams.get('cursor')).toMatch(/^[\w-]+$/);
    expect(await rows.last().textContent()).toContain(answers[0]!.requestId);
    expect(await page.getByRole('link', { name: 'Older', exact: true }).count()).toBe(0);
    await page.getByRole('link', { name: 'Newest', exact: true }).click();
    await expect.poll(() => rows.count()).toBe(51);

    await page.getByLabel('Status class').selectOption('4xx');
    await page
      .getByLabel('Key')
      .selectOption({ label: `Door app (bxo_live_…${doorKey.slice(-4)})` });
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('status_class')).toBe('4xx');
    const fourXx = count((answer) => answer.status >= 400 && answer.status < 500);
    await expect.poll(() => rows.count()).toBe(fourXx + 1);
    const filtered = address();
    expect(new URL(page.url()).searchParams.get('key_id')).toMatch(/^key_/);

    // A request's details, and back to the same filtered list.
    await rows.filter({ hasText: invalid.requestId }).getByRole('link').click();
    await heading('Request').waitFor();
    const details = page.locator('dl');
    await details.getByText(invalid.requestId, { exact: true }).waitFor();
    await details.getByText(invalid.code!, { exact: true }).first().waitFor();
    const reference = page.getByRole('link', {
      name: `What ${invalid.code} means (API reference)`,
    });
    expect(await reference.getAttribute('href')).toBe(ERROR_CODES);
    await page.getByRole('region', { name: 'Request body' }).getByText('"name": ""').waitFor();
    await page
      .getByRole('region', { name: 'Error body' })
      .getByText(`"code": "${invalid.code}"`)
      .waitFor();
    await checkPage('a failed request');
    await page.getByRole('link', { name: 'Back to the logs' }).click();
    await heading('Logs').waitFor();
    expect(address()).toBe(filtered);

    // A request the log does not have (another mode's, or gone).
    await page.goto(`${origin}/dashboard/logs/req_not_here`);
    await page.getByText('There is no request req_not_here in the live log.').waitFor();
  });

  it('charts the usage of the last 24 hours and 14 days, for all keys or one', async () => {
    // A webhook delivery, for the deliveries' chart.
    const receiver = await startWebhookReceiver('/hooks');
    try {
      await page
        .getByRole('navigation', { name: 'Settings' })
        .getByRole('link', { name: 'Webhooks' })
        .click();
      await step.closeDialog(await step.addEndpoint(page, receiver.url));
      await step.deliverTestEvent(await step.enabledEndpoint(page, receiver.url));
    } finally {
      await receiver.close();
    }

    await activityLink('Usage').click();
    await heading('Usage').waitFor();
    const requests = page.getByRole('figure', { name: 'Requests by status' });
    const total = answers.length;
    const ok = count((answer) => answer.status < 300);
    const fourXx = count((answer) => answer.status >= 400 && answer.status < 500);
    await requests
      .getByText(
        `${total} requests made with any key in the last 24 hours: ${ok} answered 2xx, ${fourXx} 4xx and 0 5xx.`,
        { exact: false },
      )
      .waitFor();
    const limited = count((answer) => answer.status === 429);
    await page
      .getByRole('figure', { name: 'Rate limited (429)' })
      .getByText(
        `${limited} of the requests made with any key in the last 24 hours were rate limited`,
      )
      .waitFor();
    await page
      .getByRole('figure', { name: 'Webhook deliveries' })
      .getByText('1 succeeded and 0 failed')
      .waitFor();
    // The charts are drawn from those numbers: the status classes' colours are on the canvas,
    // and the table behind each chart has them.
    await expect.poll(() => pixelsOf(requests, '#1e7a45')).toBeGreaterThan(0);
    await expect.poll(() => pixelsOf(requests, '#b7791f')).toBeGreaterThan(0);
    await expect
      .poll(() => pixelsOf(page.getByRole('figure', { name: 'Rate limited (429)' }), '#7c3aed'))
      .toBeGreaterThan(0);
    await requests.getByText('The numbers').click();
    const row = requests.getByRole('row').nth(1);
    expect((await row.getByRole('cell').allTextContents()).slice(0, 3)).toEqual([
      String(total),
      String(ok),
      String(fourXx),
    ]);
    await checkPage('usage, 24 hours');

    // One key's, over 14 days: the choice is in the address.
    await page.getByLabel('Last 14 days').check();
    await page
      .getByLabel('Key')
      .selectOption({ label: `Nightly sync (bxo_live_…${syncKey.slice(-4)})` });
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('window')).toBe('14d');
    await requests
      .getByText('3 requests made with “Nightly sync” in the last 14 days: 3 answered 2xx', {
        exact: false,
      })
      .waitFor();
    await checkPage('usage, 14 days, one key');
    const shared = page.url();
    await page.goto(shared);
    await requests.getByText('3 requests made with “Nightly sync”', { exact: false }).waitFor();
  });

  it('shows each key’s requests of the last 24 hours, and its last use', async () => {
    await page
      .getByRole('navigation', { name: 'Settings' })
      .getByRole('link', { name: 'API keys' })
      .click();
    await heading('API keys').waitFor();
    const door = page.getByRole('row', { name: /Door app/ });
    // Every request but the last three, the other key's.
    const doorRequests = answers.length - 3;
    await door
      .getByRole('link', { name: new RegExp(`^${doorRequests} requests in the last 24 hours`) })
      .waitFor();
    expect(await door.getByText('never', { exact: true }).count()).toBe(0);
    const sync = page.getByRole('row', { name: /Nightly sync/ });
    await sync.getByRole('link', { name: /^3 requests in the last 24 hours/ }).click();
    await heading('Logs').waitFor();
    await expect.poll(() => requestsTable().getByRole('row').count()).toBe(4);
  });

  it(
    'shows the test environment’s requests in test mode, and only those',
    async () => {
      await activityLink('Logs').click();
      await expect.poll(() => requestsTable().getByRole('row').count()).toBe(51);
      await step.switchTestMode(page, true);
      await page.getByText('No requests recorded yet.').waitFor();
      await step.switchTestMode(page, false);
      await expect.poll(() => requestsTable().getByRole('row').count()).toBe(51);
    },
    step.FIRST_TEST_MODE_TEST_MS,
  );

  it('links to the error codes’ table of the API reference', async () => {
    await page.goto(`${origin}${ERROR_CODES}`);
    const title = page.getByRole('heading', { name: 'Status codes and error codes' }).first();
    await title.waitFor({ timeout: 30_000 });
    await expect
      .poll(() => title.evaluate((element) => element.getBoundingClientRect().top), {
        timeout: 15_000,
      })
      .toBeLessThan(400);
    await page.getByText(invalid.code!, { exact: true }).first().waitFor();
  });
});

describe('Exports', () => {
  const exportsTable = () => page.getByRole('region', { name: 'Exports, newest first' });

  it('starts an export of the test tickets, shows it made, and downloads its file', async () => {
    await page.goto(`${origin}/dashboard/logs`);
    await heading('Logs').waitFor();
    await step.switchTestMode(page, false);
    await activityLink('Exports').click();
    await heading('Exports').waitFor();
    await page.getByText('No exports yet.').waitFor();
    await checkPage('exports, none yet');

    // Sent without a list, the form says so at the field, and starts nothing.
    await page.getByRole('button', { name: 'Start export' }).click();
    await page.getByText('Choose the list to export.').waitFor();
    await expect
      .poll(() => page.getByLabel('List').evaluate((e) => e === document.activeElement))
      .toBe(true);
    await checkPage('exports, a form in error');

    await step.switchTestMode(page, true);
    await page.getByRole('heading', { name: 'Test exports' }).waitFor();
    await page.getByText('No test exports yet.').waitFor();
    await page.getByLabel('List').selectOption('tickets');
    await page.getByLabel('Format').selectOption('ndjson');
    // The filters follow the list: tickets have statuses.
    await page.getByRole('checkbox', { name: 'valid', exact: true }).check();
    await page.getByRole('checkbox', { name: 'checked in', exact: true }).check();
    await page.getByRole('button', { name: 'Start export' }).click();

    // The page asks again by itself while the export is made: no reload here.
    const row = exportsTable().getByRole('row', { name: /Tickets/ });
    await row.getByText('status: valid, checked_in').waitFor();
    await row.getByText('ready', { exact: true }).waitFor({ timeout: 30_000 });
    await checkPage('exports, one ready');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('link', { name: /^Download tickets export exp_/ }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^exp_\w+\.ndjson$/);
    const file = await readFile(await download.path(), 'utf8');
    const lines = file.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    const rows = Number((await row.getByRole('cell').nth(1).textContent())!.replace(/\D/g, ''));
    expect(lines.length).toBe(rows);
    const first = JSON.parse(lines[0]!) as { id: string; status: string; livemode: boolean };
    expect(first.id).toMatch(/^tkt_/);
    expect(['valid', 'checked_in']).toContain(first.status);
    expect(first.livemode).toBe(false);

    // The other mode has exports of its own: none.
    await step.switchTestMode(page, false);
    await page.getByText('No exports yet.').waitFor();
  });
});
