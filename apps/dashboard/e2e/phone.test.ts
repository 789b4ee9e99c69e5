import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations } from './accessibility';
import { run } from './api-server';
import * as step from './steps';
import { browserSuite } from './suite';
import { startWebhookReceiver } from './webhook-receiver';

/**
 * Every screen of the dashboard on a phone (360 and 390 px wide, as a phone lays pages out): the
 * page is never wider than the screen, an open dialog sits inside it with its content, and a long
 * key name wraps instead of widening the page, there and on a desktop; the webhooks page and its
 * dialogs too, with a long URL; and test mode's switch, banner and reset dialog.
 */

const WIDTHS = [360, 390] as const;
const screenshots = fileURLToPath(new URL('../test-results/phone', import.meta.url));

const account = {
  organisation: 'Riverside Hall and Community Arts Centre',
  email: `box-office-${randomBytes(4).toString('hex')}@riverside-community-arts.example`,
  password: 'correct horse battery',
};
/** Names as long as the server takes (100 characters): one from the dashboard, one from the CLI. */
const longName = 'N'.repeat(100);
const longestName = `${'Nightly-sync-of-the-box-office-'.repeat(3)}${'x'.repeat(7)}`;

// A phone: the page's meta viewport decides its layout width, and touch input.
const suite = browserSuite('dashboard-phone', {
  viewport: { width: WIDTHS[0], height: 780 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
});
let page: Page;
let origin: string;

const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });

/**
 * The page's width against the screen's, where an open dialog sits, at each phone width; and no
 * accessibility violation at the narrowest.
 */
async function fitsEveryWidth(screen: string): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 780 });
    // Let layout settle (fonts, the dialog's centring) before measuring.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    const measured = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      body: document.body.scrollWidth,
    }));
    expect(measured.page, `${screen} at ${width} px: page width`).toBeLessThanOrEqual(width);
    expect(measured.body, `${screen} at ${width} px: body width`).toBeLessThanOrEqual(width);
    const dialog = page.locator('dialog[open]');
    if ((await dialog.count()) > 0) {
      const box = (await dialog.boundingBox())!;
      expect(box.x, `${screen} at ${width} px: dialog's left edge`).toBeGreaterThanOrEqual(0);
      expect(
        box.x + box.width,
        `${screen} at ${width} px: dialog's right edge`,
      ).toBeLessThanOrEqual(width);
      // Nor does its content (a long URL, say) run past its edge and scroll it sideways.
      const inside = await dialog.evaluate((open) => ({
        content: open.scrollWidth,
        shown: open.clientWidth,
      }));
      expect(
        inside.content,
        `${screen} at ${width} px: dialog's content width`,
      ).toBeLessThanOrEqual(inside.shown);
    }
    // A modal dialog is fixed to the screen: a full-page picture would show it out of place.
    if (width === WIDTHS[0]) {
      expect(await accessibilityViolations(page), `${screen} at ${width} px: axe-core`).toEqual([]);
    }
    await page.screenshot({
      path: path.join(screenshots, `${screen}-${width}.png`),
      fullPage: (await dialog.count()) === 0,
    });
  }
}

beforeAll(async () => {
  await mkdir(screenshots, { recursive: true });
  ({ page, origin } = suite);
});

describe('the dashboard on a phone', () => {
  it('fits every screen, from sign-up to a revoked key', async () => {
    await page.goto(`${origin}/dashboard/signin`);
    await heading('Sign in').waitFor();
    await fitsEveryWidth('01-sign-in');

    await step.signUpAfterShortPassword(page, account, () => fitsEveryWidth('02-sign-up-errors'));
    await fitsEveryWidth('03-keys-empty');

    // A name of one unbroken word, as long as the form takes.
    const dialog = await step.generateKey(page, longName);
    await fitsEveryWidth('04-secret-dialog');
    await page.keyboard.press('Escape');
    await dialog.getByRole('alert').getByText('You have not copied this key.').waitFor();
    await fitsEveryWidth('05-secret-dialog-asking');
    await step.closeDialog(dialog, 'Close without copying');

    // The longest name the server takes, given by an operator.
    const session = await page.evaluate(async () => {
      const response = await fetch('/dashboard/api/session');
      return (await response.json()) as { organisation: { id: string } };
    });
    await run(
      'dist/cli.js',
      [
        'key',
        'create',
        '--org',
        session.organisation.id,
        '--scopes',
        'read',
        '--name',
        longestName,
      ],
      { ...process.env, ...suite.database.env, LOG_LEVEL: 'silent' },
    );
    await page.reload();
    await heading('API keys').waitFor();
    await page.getByRole('row', { name: new RegExp(longestName) }).waitFor();
    await fitsEveryWidth('06-keys-long-names');

    await page.getByRole('button', { name: `Revoke ${longestName}` }).click();
    await page.getByRole('alertdialog').waitFor();
    await fitsEveryWidth('07-revoke-dialog');
    await page.getByRole('button', { name: 'Cancel' }).click();

    // On a desktop, too, the long names wrap inside the table, which needs no scrolling.
    await page.setViewportSize({ width: 1280, height: 800 });
    const table = await page.locator('.table-wrap').evaluate((wrap) => ({
      scroll: wrap.scrollWidth,
      client: wrap.clientWidth,
    }));
    expect(table.scroll).toBeLessThanOrEqual(table.client);

    await step.openPlan(page, 'Free');
    await fitsEveryWidth('08-plan-free');
    await step.upgradeToPro(page);
    await fitsEveryWidth('09-plan-pro');
    await page.getByRole('button', { name: 'Downgrade to Free' }).click();
    await page.getByRole('alertdialog').waitFor();
    await fitsEveryWidth('10-downgrade-dialog');
    await page.getByRole('button', { name: 'Stay on Pro' }).click();

    // Webhooks: the empty page, the secret dialog, an endpoint with a long URL and a delivery,
    // then its dialogs: editing it (to a longer URL still), rotating its secret and deleting it.
    const receiver = await startWebhookReceiver(
      `/hooks/${'riverside-box-office-door-sync-'.repeat(4)}`,
    );
    const { url } = receiver;
    const longUrl = `${url}?token=${'0123456789abcdef'.repeat(8)}`;
    try {
      await step.openEmptyWebhooks(page);
      await fitsEveryWidth('11-webhooks-empty');
      const secret = await step.addEndpoint(page, url);
      await fitsEveryWidth('12-webhook-secret-dialog');
      await step.closeDialog(secret);
      const card = await step.enabledEndpoint(page, url);
      await fitsEveryWidth('13-webhook-endpoint');
      await step.deliverTestEvent(card);
      await fitsEveryWidth('14-webhook-deliveries');
      // Each delivery's status is in sight at the narrowest width, without scrolling the table.
      await page.setViewportSize({ width: WIDTHS[0], height: 780 });
      const status = card.getByRole('cell', { name: 'delivered', exact: true });
      const [cell, wrap] = await Promise.all([
        status.boundingBox(),
        card.locator('.table-wrap').boundingBox(),
      ]);
      expect(cell, 'the status cell is shown').not.toBeNull();
      expect(cell!.x + cell!.width, 'the status column within the table').toBeLessThanOrEqual(
        wrap!.x + wrap!.width,
      );

      // Editing it: the form in a dialog, with every event type once "All events" is unticked.
      await card.getByRole('button', { name: 'Edit', exact: true }).click();
      const edit = page.getByRole('dialog', { name: 'Edit endpoint' });
      await edit.waitFor();
      await fitsEveryWidth('15-webhook-edit-dialog');
      await edit.getByLabel('All events, including types added later').uncheck();
      await edit.getByRole('button', { name: 'Save changes' }).click();
      await edit.getByText('Choose at least one event type, or all of them.').waitFor();
      await fitsEveryWidth('16-webhook-edit-dialog-errors');
      // A URL with a long token in it, which has nowhere to break.
      await edit.getByLabel('Endpoint URL').fill(longUrl);
      await edit.getByLabel('order.created').check();
      await edit.getByLabel('ticket.updated').check();
      await edit.getByRole('button', { name: 'Save changes' }).click();
      await edit.waitFor({ state: 'detached' });
    } finally {
      await receiver.close();
    }
    const edited = page.getByRole('article', { name: `Endpoint ${longUrl}` });
    await edited.getByRole('list', { name: 'Events' }).getByText('ticket.updated').waitFor();

    await edited.getByRole('button', { name: 'Rotate secret' }).click();
    const rotate = page.getByRole('alertdialog', { name: 'Rotate the signing secret?' });
    await rotate.waitFor();
    await fitsEveryWidth('17-webhook-rotate-dialog');
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = page.getByRole('dialog', { name: 'Your new signing secret' });
    await rotated.waitFor();
    await fitsEveryWidth('18-webhook-rotated-secret-dialog');
    await step.closeDialog(rotated);

    await edited.getByRole('button', { name: 'Delete' }).click();
    const remove = page.getByRole('alertdialog', { name: 'Delete this endpoint?' });
    await remove.getByText(longUrl).waitFor();
    await fitsEveryWidth('19-webhook-delete-dialog');
    await remove.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByText('No webhook endpoints yet.').waitFor();

    // Test mode, switched on with a tap: the switch and the banner's button are in reach at the
    // narrowest width, the banner in sight, and every page and the reset dialog fit.
    await page.setViewportSize({ width: WIDTHS[0], height: 780 });
    const toggle = page.getByRole('switch', { name: 'Test mode' });
    await toggle.tap();
    const banner = step.testModeBanner(page);
    await banner.getByText('Test mode: you are viewing test data').waitFor();
    await page.getByText('No test webhook endpoints yet.').waitFor();
    const reset = banner.getByRole('button', { name: 'Reset test data' });
    for (const [name, element] of [
      ['the switch', toggle],
      ['the banner', banner],
      ['the reset button', reset],
    ] as const) {
      const box = (await element.boundingBox())!;
      expect(box.x, `${name}: left edge`).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, `${name}: right edge`).toBeLessThanOrEqual(WIDTHS[0]);
      expect(box.y + box.height, `${name}: on the first screen`).toBeLessThanOrEqual(780);
      // Big enough to tap (WCAG 2.2's minimum target size).
      if (name !== 'the banner') expect(box.height, `${name}: height`).toBeGreaterThanOrEqual(24);
    }
    await fitsEveryWidth('20-test-mode-webhooks');
    await reset.tap();
    const confirm = page.getByRole('alertdialog', { name: 'Reset the test data?' });
    await confirm.waitFor();
    await fitsEveryWidth('21-test-mode-reset-dialog');
    await step.closeDialog(confirm, 'Keep test data');
    await page.getByRole('link', { name: 'API keys' }).tap();
    await page.getByRole('heading', { name: 'Your test keys' }).waitFor();
    await fitsEveryWidth('22-test-mode-keys');
    await toggle.tap();
    await banner.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Your live keys' }).waitFor();

    await page.goto(`${origin}/dashboard/settings/nothing-here`);
    await heading('Page not found').waitFor();
    await fitsEveryWidth('23-not-found');
  });

  it('fits a sign-up for an email that has an account, with the way to sign in', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in').waitFor();
    await step.openSignUp(page);
    await step.submitSignUp(page, account);
    await page.getByText('An account with this email already exists.').waitFor();
    await fitsEveryWidth('24-sign-up-email-taken');
    await page.getByRole('link', { name: 'Sign in instead' }).click();
    await heading('Sign in').waitFor();
  });

  it('fits a refused sign-in and a lock-out, said in minutes', async () => {
    const stranger = `nobody-${randomBytes(4).toString('hex')}@example.com`;
    await page.getByLabel('Email').fill(stranger);
    let alert = '';
    // Ten wrong passwords for one account from one address, then the lock-out.
    for (let attempt = 1; attempt <= 11 && !alert.includes('Too many'); attempt++) {
      await page.getByLabel('Password', { exact: true }).fill(`wrong password ${attempt}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const shown = page.locator('form').getByRole('alert');
      await shown.waitFor();
      alert = (await shown.textContent()) ?? '';
      // A refused password is cleared, ready for the next try.
      if (!alert.includes('Too many')) {
        await expect.poll(() => page.getByLabel('Password', { exact: true }).inputValue()).toBe('');
      }
      if (attempt === 1) await fitsEveryWidth('25-sign-in-refused');
    }
    expect(alert).toMatch(/Try again in \d+ minutes\./);
    await fitsEveryWidth('26-sign-in-locked-out');
  });
});
