import { createServer, type Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  freePort,
  prepareDatabase,
  requireBuilds,
  startApiServer,
  type ApiServer,
  type TestDatabase,
} from './api-server';
import { launchBrowser, recordCspViolations } from './browser';

/**
 * The origin's security headers as a browser applies them: the API reference renders from this
 * server alone, another site cannot frame the dashboard, and no page trips its own policy.
 */

let database: TestDatabase | undefined;
let server: ApiServer | undefined;
let browser: Browser | undefined;
let origin = '';

beforeAll(async () => {
  requireBuilds();
  database = await prepareDatabase('dashboard-security');
  server = await startApiServer(database.env);
  origin = server.origin;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await database?.cleanup();
});

let context: BrowserContext;
let page: Page;
let violations: string[];
/** Requests to any other origin than the API server's: each one is aborted. */
let offOrigin: string[];

beforeEach(async () => {
  context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
  violations = await recordCspViolations(context);
  offOrigin = [];
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) {
      await route.continue();
    } else {
      offOrigin.push(url);
      await route.abort('internetdisconnected');
    }
  });
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
});

afterEach(async () => {
  await context.close();
});

describe('the API reference at /docs', () => {
  it('renders from this server alone, without a single request elsewhere', async () => {
    await page.goto(`${origin}/docs`);
    await page.getByRole('heading', { name: 'Boxoffice API' }).waitFor();
    // The guides of docs/api.md come first; an operation is drawn once it is scrolled to.
    await page.getByRole('heading', { name: 'SDK quick start' }).first().waitFor();
    await page.goto(`${origin}/docs#tag/events/GET/events`);
    await page.getByRole('heading', { name: 'List events' }).first().waitFor();
    // Whatever the page loads lazily once shown.
    await page.waitForLoadState('networkidle');

    expect(offOrigin).toEqual([]);
    expect(violations).toEqual([]);
  });

  it('tries a request from its API client under the policy, against this server', async () => {
    await page.goto(`${origin}/docs#tag/events/GET/events`);
    await page
      .getByRole('button', { name: /Test Request/ })
      .first()
      .click();
    const sent = page.waitForResponse((response) =>
      response.url().startsWith(`${origin}/api/v1/events`),
    );
    await page.getByRole('button', { name: /Send/ }).first().click();
    expect((await sent).status()).toBe(401);
    await page.getByText('missing_api_key').first().waitFor();
    await page.waitForLoadState('networkidle');

    expect(offOrigin).toEqual([]);
    expect(violations).toEqual([]);
  });
});

describe('the dashboard', () => {
  it('loads its sign-in and sign-up pages without a policy violation', async () => {
    await page.goto(`${origin}/dashboard/`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByRole('link', { name: 'Create an organisation' }).click();
    await page.getByRole('heading', { level: 1, name: 'Create your organisation' }).waitFor();
    await page.waitForLoadState('networkidle');

    expect(offOrigin).toEqual([]);
    expect(violations).toEqual([]);
  });

  describe('framed by another site', () => {
    let framer: Server;
    let framerOrigin = '';

    beforeAll(async () => {
      // Another origin on the same host: same-site, so cookies would go along with the frame.
      const port = await freePort();
      framerOrigin = `http://127.0.0.1:${port}`;
      framer = createServer((req, res) => {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        if (req.url === '/own') {
          res.end('<!doctype html><p>A page of the framing site</p>');
          return;
        }
        res.end(
          `<!doctype html><title>Framing site</title>
          <iframe id="own" src="/own"></iframe>
          <iframe id="dashboard" src="${origin}/dashboard/" width="800" height="600"></iframe>`,
        );
      });
      await new Promise<void>((resolve) => framer.listen(port, '127.0.0.1', resolve));
    });

    afterAll(async () => {
      framer.closeAllConnections();
      await new Promise((resolve) => framer.close(resolve));
    });

    it('does not get the dashboard rendered in its frame', async () => {
      // The framing site is reachable; its requests are not what this test counts.
      await context.unrouteAll();
      const dashboardRequests: string[] = [];
      page.on('request', (request) => {
        if (request.url().startsWith(`${origin}/`)) dashboardRequests.push(request.url());
      });
      await page.goto(framerOrigin);
      await page.waitForLoadState('load');

      // The harness sees what a frame renders: the framing site's own frame shows its page.
      const own = page.frameLocator('#own');
      await own.getByText('A page of the framing site').waitFor();

      // The dashboard's document came back, but the browser did not show it: its scripts were
      // never loaded and its sign-in form never appeared.
      const element = await page.locator('#dashboard').elementHandle();
      const frame = await element.contentFrame();
      expect(frame).not.toBeNull();
      const signIn = frame!.getByRole('heading', { name: 'Sign in' });
      await expect(signIn.waitFor({ timeout: 3_000 })).rejects.toThrow();
      expect(frame!.url()).not.toBe(`${origin}/dashboard/`);
      expect(dashboardRequests).toEqual([`${origin}/dashboard/`]);
    });
  });
});

describe('the violation record', () => {
  it('catches a violation when a page has one', async () => {
    await page.goto(`${origin}/dashboard/`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    // An inline script, as injected markup would bring: the policy must refuse it.
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'document.title = "injected"';
      document.head.append(script);
    });
    await expect.poll(() => violations.length).toBeGreaterThan(0);
    expect(violations.join('\n')).toMatch(/script-src/);
    expect(await page.title()).not.toBe('injected');
  });
});
