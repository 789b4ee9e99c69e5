import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { prepareDatabase, requireBuilds, startApiServer, type TestDatabase } from './api-server';
import { launchBrowser, recordCspViolations } from './browser';

export interface Suite {
  database: TestDatabase;
  origin: string;
  context: BrowserContext;
  page: Page;
}

/**
 * A browser suite's world: the built API server on a database of its own, Chromium, one context
 * with `contextOptions` and one page in it. No test may break the Content-Security-Policy.
 * `prepare` runs on the context before the page opens (permissions, say).
 */
export function browserSuite(
  label: string,
  contextOptions: BrowserContextOptions,
  prepare?: (context: BrowserContext, origin: string) => Promise<void>,
): Suite {
  const suite = {} as Suite;
  // What `afterAll` undoes, as far as `beforeAll` got: `suite` is empty until it is done.
  let database: TestDatabase | undefined;
  let browser: Browser | undefined;
  let stopServer: (() => Promise<void>) | undefined;
  let violations: string[] = [];

  beforeAll(async () => {
    requireBuilds();
    database = await prepareDatabase(label);
    suite.database = database;
    const server = await startApiServer(database.env);
    stopServer = server.stop;
    suite.origin = server.origin;
    browser = await launchBrowser();
    suite.context = await browser.newContext(contextOptions);
    violations = await recordCspViolations(suite.context);
    await prepare?.(suite.context, suite.origin);
    suite.page = await suite.context.newPage();
    // A step that first uses test mode waits while its sample data is made: a few seconds alone,
    // and up to the server's 30 s wait for it beside the API suite on a 2-core CI host.
    suite.page.setDefaultTimeout(45_000);
  });

  afterEach(() => {
    expect(violations, 'Content-Security-Policy violations').toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await stopServer?.();
    await database?.cleanup();
  });

  return suite;
}
