import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The dashboard in a real browser against the real API server: sign up, generate a key, see the
 * free plan refuse it (402), upgrade, see it work (200), revoke it (401); then sign out and in.
 * It needs the built dashboard (`dist/`, the `test` script builds it) and the built API (turbo
 * builds dependencies first).
 */

const appRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dashboardDir = path.join(appRoot, 'dist');
// The API is a devDependency of the dashboard, so turbo builds it before this suite runs.
const apiDir = path.join(appRoot, 'node_modules', '@boxoffice', 'api');
const screenshots = path.join(appRoot, 'test-results');

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

const account = {
  organisation: 'Riverside Hall',
  email: `owner-${randomBytes(4).toString('hex')}@riverside.example`,
  password: 'correct horse battery',
};

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** Runs a node script to completion; rejects with its output when it fails. */
function run(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: apiDir, env });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${script} ${args.join(' ')}: ${output}`)),
    );
  });
}

/**
 * A database for this run: a fresh, migrated one on the server of DATABASE_URL when it is set,
 * otherwise none (the API then starts its embedded PostgreSQL in a temporary DATA_DIR).
 */
async function prepareDatabase(): Promise<{
  env: NodeJS.ProcessEnv;
  cleanup: () => Promise<void>;
}> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'boxoffice-dashboard-e2e-'));
    // As root, PostgreSQL runs as its own user, which must be able to reach its data.
    await chmod(dataDir, 0o755);
    return {
      env: { DATA_DIR: dataDir },
      cleanup: () => rm(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `boxoffice_dashboard_e2e_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  await run('dist/cli.js', ['migrate'], {
    ...process.env,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
  });
  return {
    env: { DATABASE_URL: databaseUrl },
    cleanup: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists "${name}" with (force)`);
      await client.end();
    },
  };
}

interface ApiServer {
  origin: string;
  stop: () => Promise<void>;
}

async function startApiServer(databaseEnv: NodeJS.ProcessEnv): Promise<ApiServer> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...databaseEnv,
    PORT: String(port),
    HOST: '127.0.0.1',
    DASHBOARD_DIR: dashboardDir,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
  };
  if (!databaseEnv.DATABASE_URL) delete env.DATABASE_URL;
  // Rate-limit counts stay in memory: this run shares nothing with other runs.
  delete env.REDIS_URL;

  const child: ChildProcess = spawn(process.execPath, ['dist/main.js'], { cwd: apiDir, env });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));

  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the API server exited:\n${output}`);
    const healthy = await fetch(`${origin}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the API server did not answer /healthz in time:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    origin,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

let database: Awaited<ReturnType<typeof prepareDatabase>> | undefined;
let server: ApiServer | undefined;
let browser: Browser | undefined;
let context: BrowserContext;
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

beforeAll(async () => {
  for (const [file, hint] of [
    [
      path.join(dashboardDir, 'index.html'),
      'build the dashboard: pnpm --filter @boxoffice/dashboard build',
    ],
    [
      path.join(apiDir, 'dist', 'main.js'),
      'build the API: pnpm turbo run build --filter=@boxoffice/api',
    ],
  ] as const) {
    if (!existsSync(file)) throw new Error(`${file} is missing: ${hint}`);
  }
  await mkdir(screenshots, { recursive: true });

  database = await prepareDatabase();
  server = await startApiServer(database.env);
  origin = server.origin;

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await database?.cleanup();
});

describe('dashboard journey', () => {
  it('signs up, generates a key that works only on Pro, and revokes it', async () => {
    await page.goto(`${origin}/dashboard/`);
    await heading('Sign in').waitFor();
    await page.getByRole('link', { name: 'Create an organisation' }).click();
    await heading('Create your organisation').waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/signup');

    // Too short a password is caught before anything is sent.
    await page.getByLabel('Organisation name').fill(account.organisation);
    await page.getByLabel('Email').fill(account.email);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create organisation' }).click();
    await page.getByText('Use at least 10 characters.').waitFor();
    expect(await page.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Password').fill(account.password);
    await screenshot('01-sign-up');
    await page.getByRole('button', { name: 'Create organisation' }).click();

    // A new organisation: free plan, no keys yet.
    await heading('API keys').waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/settings/keys');
    await page.getByText('No API keys yet.').waitFor();
    await page.getByRole('heading', { name: 'Your organisation is on the Free plan' }).waitFor();
    await screenshot('02-keys-empty');

    // Generate a read key; its secret is shown once, in a modal dialog.
    await page.getByLabel('Key name').fill('Reporting');
    expect(await page.getByRole('checkbox', { name: 'read', exact: true }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: 'write', exact: true }).isChecked()).toBe(
      false,
    );
    await page.getByRole('button', { name: 'Generate key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your new API key' });
    await dialog.waitFor();
    secret = await dialog.getByLabel('Secret key').inputValue();
    expect(secret).toMatch(/^bxo_live_\S{16,}$/);
    await expect.poll(focusedText).toBe('Copy');
    await dialog.getByText('BOXOFFICE_API_KEY', { exact: false }).first().waitFor();
    await dialog.getByText(`${origin}/api/v1/events`, { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Copy' }).click();
    await dialog.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await screenshot('03-key-dialog');

    // Escape closes it, focus goes back to the form, and the secret is gone from the page.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(focusedText).toBe('Generate key');
    expect(await page.content()).not.toContain(secret);

    const row = page.getByRole('row', { name: /Reporting/ });
    await row.getByText('active', { exact: true }).waitFor();
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
    await page.getByText(/No changes yet/).waitFor();
    await screenshot('05-plan-free');

    await page.getByRole('button', { name: 'Upgrade to Pro' }).click();
    await page.getByRole('heading', { name: 'Current plan: Pro' }).waitFor();
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
    expect(await row.getByRole('button', { name: 'Revoke Reporting' }).count()).toBe(0);
    await screenshot('07-key-revoked');

    await expect.poll(() => eventsStatus(secret), { timeout: 5_000 }).toBe(401);
  });

  it('signs out, refuses a wrong password, and signs in again', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in').waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/signin');

    // The session is gone on the server, not just in the page; signing in returns to the page.
    await page.goto(`${origin}/dashboard/settings/plan`);
    await heading('Sign in').waitFor();
    expect(new URL(page.url()).search).toBe('?next=%2Fsettings%2Fplan');

    await page.getByLabel('Email').fill(account.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.locator('form').getByRole('alert');
    await alert.waitFor();
    expect((await alert.textContent())?.trim()).not.toBe('');
    await screenshot('08-sign-in-error');

    await page.getByLabel('Password').fill(account.password);
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

  it('downgrades only after confirmation', async () => {
    await page.getByRole('link', { name: 'Plan', exact: true }).click();
    await page.getByRole('heading', { name: 'Current plan: Pro' }).waitFor();

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
});
