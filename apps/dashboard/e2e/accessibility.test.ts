import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations } from './accessibility';
import { browserSuite } from './suite';
import { refreshUntilDelivered, startWebhookReceiver } from './webhook-receiver';

/**
 * Every page and state a person meets, on a desktop and on a phone (360 px): the home page, the
 * API reference, sign-in and sign-up, keys, plan and webhooks with their dialogs. axe-core finds
 * nothing serious or critical on any of them.
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

    await page.getByRole('link', { name: 'Create an organisation' }).click();
    await heading('Create your organisation').waitFor();
    await page.getByLabel('Organisation name').fill('Riverside Hall');
    await page.getByLabel('Email').fill(`a11y-${randomBytes(4).toString('hex')}@riverside.example`);
    await page.getByLabel('Password', { exact: true }).fill('short');
    await page.getByRole('button', { name: 'Create organisation' }).click();
    await page.getByText('Use at least 10 characters.').waitFor();
    await checkAccessibility('sign-up with an error');
    await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
    await page.getByRole('button', { name: 'Create organisation' }).click();

    await heading('API keys').waitFor();
    await page.getByText('No API keys yet.').waitFor();
    await checkAccessibility('keys, none yet');

    await page.getByLabel('Key name').fill('Reporting');
    await page.getByRole('button', { name: 'Generate key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your new API key' });
    await dialog.waitFor();
    await checkAccessibility('keys, the new key shown');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.getByRole('button', { name: 'Close without copying' }).click();
    await dialog.waitFor({ state: 'detached' });

    const row = page.getByRole('row', { name: /Reporting/ });
    await row.getByText('active', { exact: true }).waitFor();
    await checkAccessibility('keys, with a key');

    await row.getByRole('button', { name: 'Revoke Reporting' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Revoke “Reporting”?' });
    await confirm.waitFor();
    await checkAccessibility('keys, the revoke dialog');
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await confirm.waitFor({ state: 'detached' });
    await row.getByText('revoked', { exact: true }).waitFor();
    await checkAccessibility('keys, after a revoke');

    await page.getByRole('link', { name: 'Plan', exact: true }).click();
    await page.getByRole('heading', { name: 'Current plan: Free' }).waitFor();
    await checkAccessibility('plan, Free');
    await page.getByRole('button', { name: 'Upgrade to Pro' }).click();
    await page.getByRole('heading', { name: 'Current plan: Pro' }).waitFor();
    await checkAccessibility('plan, Pro');

    const receiver = await startWebhookReceiver('/boxoffice');
    try {
      await page
        .getByRole('navigation', { name: 'Settings' })
        .getByRole('link', { name: 'Webhooks' })
        .click();
      await heading('Webhooks').waitFor();
      await page.getByText('No webhook endpoints yet.').waitFor();
      await checkAccessibility('webhooks, none yet');
      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const secret = page.getByRole('dialog', { name: 'Your new webhook endpoint' });
      await secret.waitFor();
      await checkAccessibility('webhooks, the new secret shown');
      await secret.getByRole('button', { name: 'Done' }).click();
      await secret.waitFor({ state: 'detached' });

      const card = page.getByRole('article', { name: `Endpoint ${receiver.url}` });
      await card.getByText('enabled', { exact: true }).waitFor();
      await checkAccessibility('webhooks, an endpoint');
      await card.getByRole('button', { name: 'Send test event' }).click();
      await card.getByText(/Test event sent/).waitFor();
      await card.getByRole('button', { name: 'Deliveries' }).click();
      await refreshUntilDelivered(card);
      await checkAccessibility('webhooks, an endpoint’s deliveries');
    } finally {
      await receiver.close();
    }
  });
});
