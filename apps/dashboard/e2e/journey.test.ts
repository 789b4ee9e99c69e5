import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import * as step from './steps';
import { browserSuite } from './suite';
import { refreshUntilDelivered, startWebhookReceiver } from './webhook-receiver';

/**
 * The dashboard in a real browser against the real API server: sign up, generate a key, see the
 * free plan refuse it (402), upgrade, see it work (200), revoke it (401); then sign out and in.
 * Nothing on the way may break the Content-Security-Policy.
 */

const screenshots = fileURLToPath(new URL('../test-results', import.meta.url));

const account = {
  organisation: 'Riverside Hall',
  email: `owner-${randomBytes(4).toString('hex')}@riverside.example`,
  password: 'correct horse battery',
};

const suite = browserSuite(
  'dashboard-e2e',
  { viewport: { width: 1280, height: 800 } },
  (context, origin) => context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin }),
);
let page: Page;
let origin: string;
let secret = '';

/** What the public API answers to a request made with `key`. */
async function eventsStatus(key: string): Promise<number> {
  const response = await fetch(`${origin}/api/v1/events`, {
    headers: { authorization: `Bearer ${key}` },
  });
  await response.arrayBuffer();
  return response.status;
}

async function screenshot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });
}

const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });
const focusedText = () => page.evaluate(() => document.activeElement?.textContent ?? null);

/** Where the page's "API reference" link (within `scope`, else anywhere) leads. */
const referenceHref = (scope = page.locator('body')) =>
  scope
    .getByRole('link', { name: 'API reference', exact: true })
    .evaluate((link) => (link as HTMLAnchorElement).href);

beforeAll(async () => {
  await mkdir(screenshots, { recursive: true });
  ({ page, origin } = suite);
});

describe('dashboard journey', () => {
  it('signs up, generates a key that works only on Pro, and revokes it', async () => {
    await page.goto(`${origin}/dashboard/`);
    await heading('Sign in').waitFor();
    // The API reference is one link away before signing in, too.
    expect(await referenceHref()).toBe(`${origin}/docs`);
    await step.openSignUp(page);
    expect(new URL(page.url()).pathname).toBe('/dashboard/signup');
    expect(await referenceHref()).toBe(`${origin}/docs`);

    // Too short a password is caught before anything is sent.
    await step.submitSignUp(page, { ...account, password: 'short' });
    await page.getByText('Use at least 10 characters.').waitFor();
    expect(await page.getByLabel('Password', { exact: true }).getAttribute('aria-invalid')).toBe(
      'true',
    );
    // A password that is easy to guess is refused by the server, which says why, at the field.
    await page.getByLabel('Password', { exact: true }).fill('password12');
    await page.getByRole('button', { name: 'Create organisation' }).click();
    await page
      .getByText(/^Password is too easy to guess\. This is a commonly used password\./)
      .waitFor();
    expect(await page.getByLabel('Password', { exact: true }).getAttribute('aria-invalid')).toBe(
      'true',
    );
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('name')))
      .toBe('password');
    await page.getByLabel('Password', { exact: true }).fill(account.password);
    // What was typed can be shown, and hidden again.
    await page.getByRole('button', { name: 'Show password' }).click();
    expect(await page.getByLabel('Password', { exact: true }).getAttribute('type')).toBe('text');
    await page.getByRole('button', { name: 'Hide password' }).click();
    expect(await page.getByLabel('Password', { exact: true }).getAttribute('type')).toBe(
      'password',
    );
    await screenshot('01-sign-up');
    await page.getByRole('button', { name: 'Create organisation' }).click();

    // A new organisation: free plan, no keys yet.
    await heading('API keys').waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/settings/keys');
    await page.getByText('No API keys yet.').waitFor();
    await page.getByText('0 of 50 active keys.').waitFor();
    await page.getByRole('heading', { name: 'Your organisation is on the Free plan' }).waitFor();
    expect(await referenceHref(page.getByRole('navigation', { name: 'Developers' }))).toBe(
      `${origin}/docs`,
    );
    await screenshot('02-keys-empty');

    // Generate a read key; its secret is shown once, in a modal dialog.
    expect(await page.getByRole('checkbox', { name: 'read', exact: true }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: 'write', exact: true }).isChecked()).toBe(
      false,
    );
    const dialog = await step.generateKey(page, 'Reporting');
    secret = await dialog.getByLabel('Secret key').inputValue();
    expect(secret).toMatch(/^bxo_live_\S{16,}$/);
    await expect.poll(focusedText).toBe('Copy');
    await dialog.getByText('BOXOFFICE_API_KEY', { exact: false }).first().waitFor();
    await dialog.getByText(`${origin}/api/v1/events`, { exact: false }).waitFor();
    // On Free, the dialog says the key is refused before anyone tries it.
    expect(await dialog.textContent()).not.toContain('is ready');
    await dialog
      .getByText('until you upgrade to Pro, the API answers this with 402 Payment Required')
      .waitFor();

    // Escape before copying asks first; Escape again goes back to the key.
    await page.keyboard.press('Escape');
    const asking = dialog.getByRole('alert');
    await asking.getByText('You have not copied this key.').waitFor();
    await expect.poll(focusedText).toBe('Back to the key');
    expect(await dialog.getByLabel('Secret key').inputValue()).toBe(secret);
    await screenshot('03-key-dialog-asking');
    await page.keyboard.press('Escape');
    await asking.waitFor({ state: 'detached' });
    expect(await dialog.isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await asking.waitFor();
    await dialog.getByRole('button', { name: 'Back to the key' }).click();
    await asking.waitFor({ state: 'detached' });

    await dialog.getByRole('button', { name: 'Copy' }).click();
    await dialog.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await screenshot('03-key-dialog');

    // Copied, Escape closes it, focus goes back to the form, and the secret is gone from the page.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(focusedText).toBe('Generate key');
    expect(await page.content()).not.toContain(secret);
    await page
      .getByRole('status')
      .filter({
        hasText: 'Key “Reporting” created. The API refuses it (402) until you upgrade to Pro.',
      })
      .waitFor({ state: 'attached' });

    const row = page.getByRole('row', { name: /Reporting/ });
    await row.getByText('active', { exact: true }).waitFor();
    await page.getByText('1 of 50 active keys.').waitFor();
    expect(await row.textContent()).toContain(secret.slice(-4));
    await row.getByText('never', { exact: true }).waitFor();
    await screenshot('04-keys-list');

    // On the free plan the key is refused.
    expect(await eventsStatus(secret)).toBe(402);

    await page
      .getByRole('navigation', { name: 'Settings' })
      .getByRole('link', { name: 'Plan' })
      .click();
    await heading('Plan').waitFor();
    await page.getByRole('heading', { name: 'Current plan: Free' }).waitFor();
    // What Pro includes is there before upgrading.
    const pro = page.getByRole('region', { name: 'Pro', exact: true });
    await pro.getByText('Door check-ins from your own apps').waitFor();
    await pro.getByRole('button', { name: 'Upgrade to Pro' }).waitFor();
    await page.getByText(/No changes yet/).waitFor();
    await screenshot('05-plan-free');

    await step.upgradeToPro(page);
    await page.getByRole('listitem').filter({ hasText: 'Upgraded from Free to Pro' }).waitFor();
    await page.getByRole('button', { name: 'Downgrade to Free' }).waitFor();
    await screenshot('06-plan-pro');

    await expect.poll(() => eventsStatus(secret), { timeout: 5_000 }).toBe(200);

    // Revoke it from the keys page, after confirming.
    await page.getByRole('link', { name: 'API keys' }).click();
    await heading('API keys').waitFor();
    await row.waitFor();
    expect(await page.getByText('Your organisation is on the Free plan').count()).toBe(0);
    await row.getByRole('button', { name: 'Revoke Reporting' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Revoke “Reporting”?' });
    await confirm.waitFor();
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await confirm.waitFor({ state: 'detached' });
    await row.getByText('revoked', { exact: true }).waitFor();
    await page.getByText('0 of 50 active keys.').waitFor();
    expect(await row.getByRole('button', { name: 'Revoke Reporting' }).count()).toBe(0);
    await screenshot('07-key-revoked');

    await expect.poll(() => eventsStatus(secret), { timeout: 5_000 }).toBe(401);
  });

  it('keeps an uncopied key through Escape after Escape, and shows the next key', async () => {
    const dialog = await step.generateKey(page, 'Door app');
    const doorSecret = await dialog.getByLabel('Secret key').inputValue();
    const asking = dialog.getByRole('alert');
    // The open dialog is still the modal one, showing the key, whatever the browser did on Escape.
    const stillShown = async () => {
      await expect
        .poll(() => page.evaluate(() => document.querySelector('dialog:modal') !== null))
        .toBe(true);
      expect(await dialog.getByLabel('Secret key').inputValue()).toBe(doorSecret);
    };

    // A keyboard user asks to close, goes back, and again: no click in between, so the browser
    // may stop keeping the dialog open on Escape (its close-watcher anti-abuse rule).
    for (let round = 1; round <= 2; round++) {
      await page.keyboard.press('Escape');
      await asking.getByText('You have not copied this key.').waitFor();
      await stillShown();
      await expect.poll(focusedText, { message: `round ${round}: asking` }).toBe('Back to the key');
      await page.keyboard.press('Escape');
      await asking.waitFor({ state: 'detached' });
      await stillShown();
      await expect.poll(focusedText, { message: `round ${round}: back` }).toBe('Copy');
    }

    // Closing without copying is still a choice the user makes, and the page is usable after it.
    await dialog.getByRole('button', { name: 'Done' }).click();
    await step.closeDialog(dialog, 'Close without copying');
    await expect.poll(focusedText).toBe('Generate key');

    // The next key's dialog opens as the first one did.
    await page.getByLabel('Key name').fill('Nightly sync');
    await page.getByRole('button', { name: 'Generate key' }).click();
    await dialog.getByText('Nightly sync').waitFor();
    expect(await dialog.isVisible()).toBe(true);
    const nextSecret = await dialog.getByLabel('Secret key').inputValue();
    expect(nextSecret).toMatch(/^bxo_live_\S{16,}$/);
    expect(nextSecret).not.toBe(doorSecret);
    await expect.poll(focusedText).toBe('Copy');
    await dialog.getByRole('button', { name: 'Copy' }).click();
    await dialog.getByRole('button', { name: 'Copied' }).waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('row', { name: /Nightly sync/ }).waitFor();
  });

  it('lists a key generated while the list of keys is still on its way', async () => {
    // The page's first list is read before the key exists, and arrives only after it is made.
    let read!: () => void;
    const listRead = new Promise<void>((resolve) => (read = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let lists = 0;
    await page.route(/\/dashboard\/api\/keys$/, async (route) => {
      if (route.request().method() !== 'GET' || ++lists > 1) return route.fallback();
      const response = await route.fetch();
      read();
      await released;
      await route.fulfill({ response });
    });
    try {
      await page.reload();
      await heading('API keys').waitFor();
      await listRead;
      const dialog = await step.generateKey(page, 'Late list');
      await dialog.getByRole('button', { name: 'Copy' }).click();
      await step.closeDialog(dialog);
      release();
      await page.getByRole('row', { name: /Late list/ }).waitFor();
      await page.getByRole('row', { name: /Nightly sync/ }).waitFor();
      expect(lists).toBe(2);
    } finally {
      release();
      await page.unroute(/\/dashboard\/api\/keys$/);
    }
  });

  it('lists a key generated after the list of keys failed to load', async () => {
    const route = /\/dashboard\/api\/keys$/;
    let lists = 0;
    await page.route(route, async (request) => {
      if (request.request().method() !== 'GET' || ++lists > 1) return request.fallback();
      await request.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({
          error: 'Service temporarily unavailable',
          code: 'service_unavailable',
        }),
      });
    });
    try {
      await page.reload();
      await page.getByRole('button', { name: 'Try again' }).waitFor();
      const dialog = await step.generateKey(page, 'After a failure');
      await dialog.getByRole('button', { name: 'Copy' }).click();
      await step.closeDialog(dialog);
      await page.getByRole('row', { name: /After a failure/ }).waitFor();
      await page.getByRole('row', { name: /Late list/ }).waitFor();
      expect(lists).toBe(2);
    } finally {
      await page.unroute(route);
    }
  });

  it('says at the scopes what is missing, and takes a key copied by hand', async () => {
    /** The text of the elements that describe `element` for assistive technology. */
    const description = (element: Locator) =>
      element.evaluate((el) =>
        (el.getAttribute('aria-describedby') ?? '')
          .split(' ')
          .map((id) => document.getElementById(id)?.textContent ?? '')
          .join(' '),
      );
    const scopes = page.getByRole('group', { name: 'Scopes' });
    const read = scopes.getByRole('checkbox', { name: 'read', exact: true });
    expect(await description(read)).toBe(
      'Read events, tiers, orders, tickets, attendees, check-ins and payouts.',
    );

    // No scope: the group says so, and focus moves to its first box.
    await page.getByLabel('Key name').fill('Box office till');
    await read.uncheck();
    await page.getByRole('button', { name: 'Generate key' }).click();
    await scopes.getByText('Choose at least one scope.').waitFor();
    expect(await description(scopes)).toBe('Choose at least one scope.');
    expect(await read.getAttribute('aria-invalid')).toBe('true');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('value')))
      .toBe('read');

    // A clipboard that refuses: the dialog says how to copy the key by hand, and a copy made that
    // way lets Done close it without asking.
    await read.check();
    await page.evaluate(() => {
      Object.defineProperty(navigator.clipboard, 'writeText', {
        configurable: true,
        value: () => Promise.reject(new DOMException('Refused', 'NotAllowedError')),
      });
    });
    try {
      await page.getByRole('button', { name: 'Generate key' }).click();
      const dialog = page.getByRole('dialog', { name: 'Your new API key' });
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Copy' }).click();
      await dialog
        .getByRole('status')
        .getByText('Could not copy: select the key and copy it yourself.')
        .waitFor();
      await dialog.getByLabel('Secret key').focus();
      await page.keyboard.press('Control+C');
      await dialog.getByRole('button', { name: 'Done' }).click();
      await dialog.waitFor({ state: 'detached' });
    } finally {
      await page.evaluate(() => {
        Reflect.deleteProperty(navigator.clipboard, 'writeText');
      });
    }
    await page.getByRole('row', { name: /Box office till/ }).waitFor();
  });

  it('signs out, refuses a wrong password, and signs in again', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in').waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/signin');

    // Signing up again with that email says so at the field, with the way to sign in.
    await step.openSignUp(page);
    await step.submitSignUp(page, {
      organisation: 'Another Hall',
      email: account.email,
      password: 'another correct horse',
    });
    await page.getByText('An account with this email already exists.').waitFor();
    expect(await page.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('link', { name: 'Sign in instead' }).click();
    await heading('Sign in').waitFor();

    // The session is gone on the server, not just in the page; signing in returns to the page.
    await page.goto(`${origin}/dashboard/settings/plan`);
    await heading('Sign in').waitFor();
    expect(new URL(page.url()).search).toBe('?next=%2Fsettings%2Fplan');

    await page.getByLabel('Email').fill(account.email);
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.locator('form').getByRole('alert');
    await alert.waitFor();
    expect((await alert.textContent())?.trim()).not.toBe('');
    // The wrong password is cleared, and the field is ready for the right one.
    expect(await page.getByLabel('Password', { exact: true }).inputValue()).toBe('');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('name')))
      .toBe('password');
    await screenshot('08-sign-in-error');

    await page.getByLabel('Password', { exact: true }).fill(account.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Plan').waitFor();
    await page.getByRole('link', { name: 'API keys' }).click();
    await heading('API keys').waitFor();
    await page
      .getByRole('row', { name: /Reporting/ })
      .getByText('revoked', { exact: true })
      .waitFor();

    // The session survives a reload.
    await page.reload();
    await heading('API keys').waitFor();
    await page.getByText(account.organisation).first().waitFor();
  });

  it('adds a webhook endpoint, sends it a test event and shows the delivery', async () => {
    const receiver = await startWebhookReceiver('/boxoffice');
    const { url, received } = receiver;
    try {
      await step.openEmptyWebhooks(page);
      const dialog = await step.addEndpoint(page, url);
      const signingSecret = await dialog.getByLabel('Signing secret').inputValue();
      expect(signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      // Copied with one press, which the button and a status line confirm.
      await dialog.getByRole('button', { name: 'Copy', exact: true }).click();
      await dialog.getByRole('button', { name: 'Copied', exact: true }).waitFor();
      await dialog.getByRole('status').getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(signingSecret);
      await step.closeDialog(dialog);

      const card = await step.enabledEndpoint(page, url);
      await card.getByText('all events').waitFor();
      await screenshot('10-webhooks');

      await card.getByRole('button', { name: 'Send test event' }).click();
      await card.getByText(/Test event sent/).waitFor();
      await expect.poll(() => received.length, { timeout: 10_000 }).toBe(1);
      const [delivery] = received;
      const event = JSON.parse(delivery!.body) as { id: string; type: string };
      expect(event.type).toBe('webhook.test');
      expect(delivery!.headers['webhook-id']).toBe(event.id);
      expect(delivery!.headers['webhook-signature']).toMatch(/^v1,\S+$/);

      await card.getByRole('button', { name: 'Deliveries' }).click();
      const row = card.getByRole('row', { name: new RegExp(event.id) });
      await refreshUntilDelivered(card, row);
      await row.getByText(/200 in \d+ ms/).waitFor();
      await screenshot('11-webhook-delivery');

      // Sent again on request, with the same id.
      await row.getByRole('button', { name: `Resend webhook.test ${event.id}` }).click();
      await expect.poll(() => received.length, { timeout: 10_000 }).toBe(2);
      expect(received[1]!.headers['webhook-id']).toBe(event.id);
    } finally {
      await receiver.close();
    }
  });

  it('downgrades only after confirmation', async () => {
    await step.openPlan(page, 'Pro');

    await page.getByRole('button', { name: 'Downgrade to Free' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Downgrade to Free?' });
    await confirm.waitFor();
    await expect.poll(focusedText).toBe('Stay on Pro');
    await screenshot('09-plan-downgrade-confirm');
    await confirm.getByRole('button', { name: 'Stay on Pro' }).click();
    await confirm.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Current plan: Pro' }).waitFor();

    await page.getByRole('button', { name: 'Downgrade to Free' }).click();
    await confirm.getByRole('button', { name: 'Downgrade to Free' }).click();
    await confirm.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Current plan: Free' }).waitFor();
    await page.getByRole('listitem').filter({ hasText: 'Downgraded from Pro to Free' }).waitFor();
    await page.getByRole('heading', { name: 'Your organisation is on the Free plan' }).waitFor();
  });

  it(
    'switches to test mode, where keys are test keys, kept apart from live ones, and resets test data',
    async () => {
      await page.getByRole('link', { name: 'API keys' }).click();
      await heading('API keys').waitFor();
      const liveKeys = page.getByRole('region', { name: 'Live API keys, newest first' });
      await liveKeys.waitFor();
      expect(await step.testModeBanner(page).count()).toBe(0);

      await step.switchTestMode(page, true);
      const banner = step.testModeBanner(page);
      await banner.getByText('Test mode: you are viewing test data').waitFor();
      await page.getByRole('heading', { name: 'Your test keys' }).waitFor();
      expect(await page.title()).toBe('Test mode · API keys · Boxoffice');
      // Focus stays on the switch: the page under it changed, not the place the user was at.
      expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe(
        'switch',
      );
      await screenshot('12-test-mode-keys');

      const dialog = await step.generateKey(page, 'Sandbox');
      const testSecret = await dialog.getByLabel('Secret key').inputValue();
      expect(testSecret).toMatch(/^bxo_test_\S{16,}$/);
      await dialog.getByText('It is a test key').waitFor();
      await dialog.getByRole('button', { name: 'Copy' }).click();
      await step.closeDialog(dialog);
      const testRow = page.getByRole('row', { name: /Sandbox/ });
      await testRow.getByText(`bxo_test_…${testSecret.slice(-4)}`).waitFor();
      await testRow.getByText('test', { exact: true }).waitFor();
      // The test key reaches the test environment (refused on the Free plan, as live keys are).
      expect(await eventsStatus(testSecret)).toBe(402);

      // The choice survives a reload.
      await page.reload();
      await heading('API keys').waitFor();
      await banner.waitFor();
      await testRow.waitFor();

      // Back in live mode: the banner is gone, and the test key is not among the live keys.
      await step.switchTestMode(page, false);
      await page.getByRole('heading', { name: 'Your live keys' }).waitFor();
      await page.getByRole('row', { name: /Reporting/ }).waitFor();
      expect(await page.getByRole('row', { name: /Sandbox/ }).count()).toBe(0);
      expect(await page.content()).not.toContain('bxo_test_');
      expect(await page.title()).toBe('API keys · Boxoffice');

      // Webhooks follow the switch: the live endpoint is not among the test ones.
      await step.switchTestMode(page, true);
      await page
        .getByRole('navigation', { name: 'Settings' })
        .getByRole('link', { name: 'Webhooks' })
        .click();
      await heading('Webhooks').waitFor();
      await page.getByText('No test webhook endpoints yet.').waitFor();
      await page.getByRole('heading', { name: 'Test endpoints' }).waitFor();

      // Resetting asks first; keeping the data changes nothing.
      const confirm = await step.openTestDataReset(page);
      await expect.poll(focusedText).toBe('Keep test data');
      await screenshot('13-test-mode-reset-confirm');
      await step.closeDialog(confirm, 'Keep test data');
      expect(await banner.getByRole('status').textContent()).toBe('');

      await page.getByRole('link', { name: 'API keys' }).click();
      await step.testDataSeeded(page);
      await step.openTestDataReset(page);
      await confirm.getByRole('button', { name: 'Reset test data' }).click();
      await confirm.waitFor({ state: 'detached' });
      await banner
        .getByRole('status')
        .getByText(
          /^Test data reset: fresh sample data of 3 events, \d+ ticket tiers?, .* and \d+ payouts?\. Your test keys and webhook endpoints are unchanged\.$/,
        )
        .waitFor();
      await expect.poll(focusedText).toBe('Reset test data');
      await screenshot('14-test-mode-reset');

      // The test key is still there.
      await page
        .getByRole('row', { name: /Sandbox/ })
        .getByText('active', { exact: true })
        .waitFor();

      await step.switchTestMode(page, false);
    },
    step.FIRST_TEST_MODE_TEST_MS,
  );
});
