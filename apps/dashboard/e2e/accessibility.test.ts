import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations } from './accessibility';
import * as step from './steps';
import { browserSuite } from './suite';
import { startWebhookReceiver } from './webhook-receiver';

/**
 * Every page and state a person meets, on a desktop and on a phone (360 px): the home page, the
 * API reference, sign-in and sign-up, keys, plan and webhooks with their dialogs, in live and in
 * test mode. axe-core finds nothing serious or critical on any of them.
 */

const DESKTOP = 1280;
const PHONE = 360;

const suite = browserSuite('dashboard-accessibility', {
  viewport: { width: DESKTOP, height: 800 },
});
let page: Page;
let origin: string;

const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });

/** axe-core's serious and critical findings on the page as it stands, at each width. */
async function checkAccessibility(state: string, widths: readonly number[] = [DESKTOP, PHONE]) {
  for (const width of widths) {
    await page.setViewportSize({ width, height: 800 });
    // Let layout settle before measuring contrast and scrolling.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    expect
      .soft(await accessibilityViolations(page, ['serious', 'critical']), `${state} at ${width} px`)
      .toEqual([]);
  }
  await page.setViewportSize({ width: DESKTOP, height: 800 });
}

beforeAll(() => {
  ({ page, origin } = suite);
});

describe('accessibility, in every page and state', () => {
  it('the home page and the API reference', async () => {
    await page.goto(`${origin}/`);
    await heading('Boxoffice').waitFor();
    await checkAccessibility('home');

    // The reference's renderer is large: its first load takes a while on a busy machine.
    await page.goto(`${origin}/docs`);
    await page.getByRole('heading', { name: 'Boxoffice API' }).waitFor({ timeout: 30_000 });
    await page.getByRole('heading', { name: 'SDK quick start' }).first().waitFor();
    await page.waitForLoadState('networkidle');
    await checkAccessibility('/docs');

    await page.goto(`${origin}/docs#tag/events/GET/events`);
    await page.getByRole('heading', { name: 'List events' }).first().waitFor();
    await page.waitForLoadState('networkidle');
    await checkAccessibility('/docs, an operation');

    // It follows the system's dark mode.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${origin}/docs`);
    await page.getByRole('heading', { name: 'SDK quick start' }).first().waitFor();
    await page.waitForLoadState('networkidle');
    await checkAccessibility('/docs, dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('sign-in, sign-up, keys, plan and webhooks', async () => {
    await page.goto(`${origin}/dashboard/signin`);
    await heading('Sign in').waitFor();
    await checkAccessibility('sign-in');

    const account = {
      organisation: 'Riverside Hall',
      email: `a11y-${randomBytes(4).toString('hex')}@riverside.example`,
      password: 'correct horse battery',
    };
    await step.signUpAfterShortPassword(page, account, () =>
      checkAccessibility('sign-up with an error'),
    );
    await checkAccessibility('keys, none yet');

    const dialog = await step.generateKey(page, 'Reporting');
    await checkAccessibility('keys, the new key shown');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await step.closeDialog(dialog, 'Close without copying');

    const row = page.getByRole('row', { name: /Reporting/ });
    await row.getByText('active', { exact: true }).waitFor();
    await checkAccessibility('keys, with a key');

    await row.getByRole('button', { name: 'Revoke Reporting' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Revoke “Reporting”?' });
    await confirm.waitFor();
    await checkAccessibility('keys, the revoke dialog');
    await step.closeDialog(confirm, 'Revoke key');
    await row.getByText('revoked', { exact: true }).waitFor();
    await checkAccessibility('keys, after a revoke');

    await step.openPlan(page, 'Free');
    await checkAccessibility('plan, Free');
    await step.upgradeToPro(page);
    await checkAccessibility('plan, Pro');

    const receiver = await startWebhookReceiver('/boxoffice');
    try {
      await step.openEmptyWebhooks(page);
      await checkAccessibility('webhooks, none yet');
      const secret = await step.addEndpoint(page, receiver.url);
      await checkAccessibility('webhooks, the new secret shown');
      await step.closeDialog(secret);

      const card = await step.enabledEndpoint(page, receiver.url);
      await checkAccessibility('webhooks, an endpoint');
      await step.deliverTestEvent(card);
      await checkAccessibility('webhooks, an endpoint’s deliveries');
    } finally {
      await receiver.close();
    }
  });

  it(
    'test mode: its banner and switch, keys, webhooks and the reset dialog',
    async () => {
      await step.switchTestMode(page, true);
      await page.getByRole('heading', { name: 'Test endpoints' }).waitFor();
      await checkAccessibility('webhooks, test mode');

      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByRole('heading', { name: 'Your test keys' }).waitFor();
      await page.getByRole('region', { name: 'Test API keys, newest first' }).waitFor();
      await checkAccessibility('keys, test mode');
      const dialog = await step.generateKey(page, 'Sandbox');
      await checkAccessibility('keys, a new test key shown');
      await dialog.getByRole('button', { name: 'Done' }).click();
      await step.closeDialog(dialog, 'Close without copying');

      await step.testDataSeeded(page);
      const confirm = await step.openTestDataReset(page);
      await checkAccessibility('test mode, the reset dialog');
      await step.closeDialog(confirm, 'Reset test data');
      await step
        .testModeBanner(page)
        .getByText(/^Test data reset/)
        .waitFor();
      await checkAccessibility('test mode, after a reset');

      await step.openPlan(page, 'Pro');
      await checkAccessibility('plan, test mode');
      await step.switchTestMode(page, false);
    },
    step.FIRST_TEST_MODE_TEST_MS,
  );
});
