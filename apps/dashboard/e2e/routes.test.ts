import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import * as step from './steps';
import { browserSuite } from './suite';

/**
 * The dashboard's addresses: each page has one under /dashboard/ that a reload, a bookmark or a
 * shared link opens; signing in returns to the page that asked for it (its query too) and to no
 * other place; back and forward move between pages; and moving to a page titles the window and
 * puts focus on its heading.
 */

const account = {
  organisation: 'Harbour Lights',
  email: `routes-${randomBytes(4).toString('hex')}@harbour.example`,
  password: 'correct horse battery',
};

const suite = browserSuite('dashboard-routes', { viewport: { width: 1280, height: 800 } });
let page: Page;
let origin: string;

const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });
/** The address shown, without the origin. */
const address = () => {
  const url = new URL(page.url());
  return `${url.pathname}${url.search}`;
};
const settingsLink = (name: string) =>
  page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name, exact: true });

async function signIn(): Promise<void> {
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password', { exact: true }).fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

beforeAll(() => {
  ({ page, origin } = suite);
});

describe('dashboard addresses', () => {
  it('opens the sign-in at the base path, with or without its slash', async () => {
    for (const start of ['/dashboard', '/dashboard/', '/dashboard/settings']) {
      await page.goto(`${origin}${start}`);
      await heading('Sign in').waitFor();
      // Nothing asked for a page: the sign-in has nowhere to return to.
      expect(address(), start).toBe('/dashboard/signin');
    }
    expect(await page.title()).toBe('Sign in · Boxoffice');

    await step.openSignUp(page);
    await step.submitSignUp(page, account);
    await heading('API keys').waitFor();
    expect(address()).toBe('/dashboard/settings/keys');
  });

  it('moves between pages in place: title, focus, the current link, back and forward', async () => {
    // Marks this document: a full page load would lose it.
    await page.evaluate(() => document.documentElement.setAttribute('data-loaded-once', ''));

    await settingsLink('Plan').click();
    await heading('Plan').waitFor();
    expect(address()).toBe('/dashboard/settings/plan');
    expect(await page.title()).toBe('Plan · Boxoffice');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.textContent.trim()))
      .toBe('Plan');
    expect(await settingsLink('Plan').getAttribute('aria-current')).toBe('page');
    expect(await settingsLink('API keys').getAttribute('aria-current')).toBeNull();

    await settingsLink('Webhooks').click();
    await heading('Webhooks').waitFor();
    await page.goBack();
    await heading('Plan').waitFor();
    expect(address()).toBe('/dashboard/settings/plan');
    await page.goBack();
    await heading('API keys').waitFor();
    await page.goForward();
    await heading('Plan').waitFor();
    expect(await page.title()).toBe('Plan · Boxoffice');

    // All in one document, and the links are real ones (a new tab opens the same page).
    expect(await page.locator('html[data-loaded-once]').count()).toBe(1);
    expect(await settingsLink('Webhooks').getAttribute('href')).toBe(
      '/dashboard/settings/webhooks',
    );
  });

  it('opens each page from its address, and says when there is none', async () => {
    for (const [path, name] of [
      ['/dashboard/settings/keys', 'API keys'],
      ['/dashboard/settings/plan/', 'Plan'],
      ['/dashboard/settings/webhooks', 'Webhooks'],
      ['/dashboard/exports', 'Exports'],
    ] as const) {
      await page.goto(`${origin}${path}`);
      await heading(name).waitFor();
      expect(new URL(page.url()).pathname).toBe(path);
    }

    // Signed in, the sign-in pages and the base path lead to the keys.
    for (const path of ['/dashboard/', '/dashboard/settings', '/dashboard/signin']) {
      await page.goto(`${origin}${path}`);
      await heading('API keys').waitFor();
      expect(address(), path).toBe('/dashboard/settings/keys');
    }

    for (const path of ['/dashboard/nowhere', '/dashboard/settings/keys/more']) {
      await page.goto(`${origin}${path}`);
      await heading('Page not found').waitFor();
      expect(address(), path).toBe(path);
    }
    expect(await page.title()).toBe('Page not found · Boxoffice');
    await page.getByRole('link', { name: 'Go to your API keys' }).click();
    await heading('API keys').waitFor();
  });

  it('signs in again where a session ended, and only to the dashboard’s own pages', async () => {
    // The session ends elsewhere (another tab signs out; it expires): the next request says so,
    // and the sign-in remembers the page, its query included.
    await page.goto(`${origin}/dashboard/settings/webhooks?endpoint=we_1`);
    await heading('Webhooks').waitFor();
    await suite.context.clearCookies();
    await settingsLink('API keys').click();
    await heading('Sign in').waitFor();
    expect(address()).toBe('/dashboard/signin?next=%2Fsettings%2Fkeys');
    await page.goto(`${origin}/dashboard/settings/webhooks?endpoint=we_1`);
    await heading('Sign in').waitFor();
    expect(new URL(page.url()).searchParams.get('next')).toBe('/settings/webhooks?endpoint=we_1');
    await signIn();
    await heading('Webhooks').waitFor();
    expect(address()).toBe('/dashboard/settings/webhooks?endpoint=we_1');

    // Signing out leaves nothing to return to.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in').waitFor();
    expect(address()).toBe('/dashboard/signin');

    // A `next` that is not a page of the dashboard leads to the keys.
    for (const next of ['//elsewhere.example/x', 'https://elsewhere.example/', '/nowhere']) {
      await page.goto(`${origin}/dashboard/signin?next=${encodeURIComponent(next)}`);
      await heading('Sign in').waitFor();
      await signIn();
      await heading('API keys').waitFor();
      expect(address(), next).toBe('/dashboard/settings/keys');
      expect(new URL(page.url()).origin).toBe(origin);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await heading('Sign in').waitFor();
    }
  });
});
