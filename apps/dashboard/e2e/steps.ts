import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { refreshUntilDelivered } from './webhook-receiver';

/** The steps every browser suite takes through the dashboard, each ending where it waits. */

export interface Account {
  organisation: string;
  email: string;
  password: string;
}

/** The page's title: its one level-one heading. */
const heading = (page: Page, name: string): Locator =>
  page.getByRole('heading', { level: 1, name, exact: true });

/** From the sign-in page to the sign-up form. */
export async function openSignUp(page: Page): Promise<void> {
  await page.getByRole('link', { name: 'Create an organisation' }).click();
  await heading(page, 'Create your organisation').waitFor();
}

/** Fills the sign-up form with `account` and sends it. */
export async function submitSignUp(page: Page, account: Account): Promise<void> {
  await page.getByLabel('Organisation name').fill(account.organisation);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password', { exact: true }).fill(account.password);
  await page.getByRole('button', { name: 'Create organisation' }).click();
}

/**
 * From the sign-in page, signs `account` up with too short a password first: `whileRefused` runs
 * while the form says so. Ends on the new organisation's keys page, with no key yet.
 */
export async function signUpAfterShortPassword(
  page: Page,
  account: Account,
  whileRefused: () => Promise<void>,
): Promise<void> {
  await openSignUp(page);
  await submitSignUp(page, { ...account, password: 'short' });
  await page.getByText('Use at least 10 characters.').waitFor();
  await whileRefused();
  await page.getByLabel('Password', { exact: true }).fill(account.password);
  await page.getByRole('button', { name: 'Create organisation' }).click();
  await heading(page, 'API keys').waitFor();
  await page.getByText('No API keys yet.').waitFor();
}

/** Fills `field` with `value` and presses `button`: the dialog named `dialog` it opens, open. */
async function openDialogWith(
  page: Page,
  [field, value]: [string, string],
  button: string,
  dialog: string,
): Promise<Locator> {
  await page.getByLabel(field).fill(value);
  await page.getByRole('button', { name: button }).click();
  const opened = page.getByRole('dialog', { name: dialog });
  await opened.waitFor();
  return opened;
}

/** Generates a key named `name` on the keys page: the dialog that shows its secret. */
export const generateKey = (page: Page, name: string): Promise<Locator> =>
  openDialogWith(page, ['Key name', name], 'Generate key', 'Your new API key');

/** Through the Plan link to the plan page, which shows the organisation on `plan`. */
export async function openPlan(page: Page, plan: 'Free' | 'Pro'): Promise<void> {
  await page.getByRole('link', { name: 'Plan', exact: true }).click();
  await page.getByRole('heading', { name: `Current plan: ${plan}` }).waitFor();
}

/** Upgrades on the plan page, until it shows the organisation on Pro. */
export async function upgradeToPro(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Upgrade to Pro' }).click();
  await page.getByRole('heading', { name: 'Current plan: Pro' }).waitFor();
}

/** Through the settings' navigation to the webhooks page of an organisation with no endpoint. */
export async function openEmptyWebhooks(page: Page): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Settings' })
    .getByRole('link', { name: 'Webhooks' })
    .click();
  await heading(page, 'Webhooks').waitFor();
  await page.getByText('No webhook endpoints yet.').waitFor();
}

/** Adds an endpoint for `url`: the dialog that shows its signing secret. */
export const addEndpoint = (page: Page, url: string): Promise<Locator> =>
  openDialogWith(page, ['Endpoint URL', url], 'Add endpoint', 'Your new webhook endpoint');

/** Closes a dialog with its `button` and waits until it has left the page. */
export async function closeDialog(dialog: Locator, button = 'Done'): Promise<void> {
  await dialog.getByRole('button', { name: button }).click();
  await dialog.waitFor({ state: 'detached' });
}

/** The endpoint's card, once it shows the endpoint enabled. */
export async function enabledEndpoint(page: Page, url: string): Promise<Locator> {
  const card = page.getByRole('article', { name: `Endpoint ${url}` });
  await card.getByText('enabled', { exact: true }).waitFor();
  return card;
}

/** Sends the endpoint of `card` a test event, and opens its deliveries until it shows delivered. */
export async function deliverTestEvent(card: Locator): Promise<void> {
  await card.getByRole('button', { name: 'Send test event' }).click();
  await card.getByText(/Test event sent/).waitFor();
  await card.getByRole('button', { name: 'Deliveries' }).click();
  await refreshUntilDelivered(card);
}

/** The banner every page shows in test mode. */
export const testModeBanner = (page: Page): Locator =>
  page.getByRole('complementary', { name: 'Test mode' });

/**
 * How long a switch to test mode may take: an organisation's first use of it makes its test
 * environment's sample data, seconds on its own and far longer on a machine busy with other suites.
 * A test that switches for the first time takes `FIRST_TEST_MODE_TEST_MS` as its timeout.
 */
export const FIRST_TEST_MODE_MS = 150_000;
export const FIRST_TEST_MODE_TEST_MS = FIRST_TEST_MODE_MS + 60_000;

/** Turns test mode on or off with the header's switch, until the banner says so and the page has loaded. */
export async function switchTestMode(page: Page, on: boolean): Promise<void> {
  const toggle = page.getByRole('switch', { name: 'Test mode' });
  if ((await toggle.getAttribute('aria-checked')) !== String(on)) await toggle.click();
  await page.getByRole('switch', { name: 'Test mode', checked: on }).waitFor();
  await testModeBanner(page).waitFor({ state: on ? 'visible' : 'detached' });
  // The page's test data is shown once there is some: the first use makes the sample data.
  await page
    .getByRole('status')
    .filter({ hasText: /^Loading/ })
    .first()
    .waitFor({ state: 'detached', timeout: FIRST_TEST_MODE_MS });
}

/** Opens the reset of the test data from the banner: its confirmation dialog. */
export async function openTestDataReset(page: Page): Promise<Locator> {
  await testModeBanner(page).getByRole('button', { name: 'Reset test data' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Reset the test data?' });
  await confirm.waitFor();
  return confirm;
}

/**
 * On the keys page in test mode, once the test environment's first sample data is complete: its
 * door scanners' key, which made the sample check-ins, is revoked when they are all in.
 */
export async function testDataSeeded(page: Page): Promise<void> {
  await expect
    .poll(
      async () => {
        await page.reload();
        const row = page.getByRole('row', { name: /Door scanners \(demo data\)/ });
        await row.waitFor();
        return row.getByText('revoked', { exact: true }).count();
      },
      { timeout: 30_000 },
    )
    .toBe(1);
}
