import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './config';
import { startEmbeddedPostgres } from './db/embedded';
import type { EntityManager, Orm } from './db/orm';
import { projectRoot } from './db/paths';
import { createUser } from './modules/accounts/account.service';
import { generateKey } from './modules/api-keys/api-key.service';
import { seedDemoData } from './modules/demo/demo.service';
import { createOrganisation } from './modules/organisations/organisation.service';
import { testOrganisationOf } from './modules/organisations/test-environment.service';

const DEMO_EMAIL = 'demo@boxoffice.test';

interface DemoCredentials {
  organisation_id: string;
  api_key: string;
  /** Missing in the files of versions before test mode: made at the next start. */
  test_api_key?: string;
  dashboard_email: string;
  dashboard_password: string;
}

const DEMO_SCOPES = ['read', 'write', 'checkins:write'];

/** A key of the demo organisation's test environment (made, with its sample data, if need be). */
async function demoTestKey(em: EntityManager, organisationId: string): Promise<string> {
  const { key } = await generateKey(em, {
    organisationId: await testOrganisationOf(em, organisationId),
    name: 'Demo test key',
    scopes: DEMO_SCOPES,
  });
  return key;
}

/**
 * The zero-configuration database of `pnpm start`: an embedded PostgreSQL under `.data/`, and on
 * its first start a demo organisation (Pro plan) with seed data, an API key, a test key (its test
 * environment's, with sample data of its own) and a dashboard user.
 * Their secrets are kept in `.data/demo.json` so later starts can print them again; this file
 * exists only for the local demo.
 */
export async function startEmbeddedDatabase(config: Config, logger: Logger) {
  const dataDir = path.resolve(config.DATA_DIR ?? path.join(projectRoot(), '.data'));
  const pgDir = path.join(dataDir, 'postgres');
  const credentialsFile = path.join(dataDir, 'demo.json');
  // The repository's own `.data/` as a newcomer knows it; another DATA_DIR as given.
  const inRepository = path.relative(projectRoot(), dataDir);
  const shownDir =
    inRepository && !inRepository.startsWith('..') && !path.isAbsolute(inRepository)
      ? `${inRepository}/`
      : dataDir;
  logger.info({ dataDir: pgDir }, 'starting embedded PostgreSQL');
  const db = await startEmbeddedPostgres({ dataDir: pgDir, shownDir });
  let demo: DemoCredentials | null = null;

  return {
    url: db.url,
    stop: () => db.stop(),
    async prepareDemo(orm: Orm): Promise<void> {
      const em = orm.em.fork();
      if (existsSync(credentialsFile)) {
        demo = JSON.parse(await readFile(credentialsFile, 'utf8')) as DemoCredentials;
        if (demo.test_api_key === undefined) {
          demo.test_api_key = await demoTestKey(em, demo.organisation_id);
          await writeFile(credentialsFile, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
        }
        return;
      }
      const org = await createOrganisation(em, { name: 'Demo Promotions', plan: 'pro' });
      const { key } = await generateKey(em, {
        organisationId: org.id,
        name: 'Demo key',
        scopes: DEMO_SCOPES,
      });
      const counts = await seedDemoData(em, org.id, {});
      const testKey = await demoTestKey(em, org.id);
      const password = randomBytes(9).toString('base64url');
      await createUser(em, { organisationId: org.id, email: DEMO_EMAIL, password });
      demo = {
        organisation_id: org.id,
        api_key: key,
        test_api_key: testKey,
        dashboard_email: DEMO_EMAIL,
        dashboard_password: password,
      };
      await writeFile(credentialsFile, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
      logger.info({ organisationId: org.id, ...counts }, 'demo organisation seeded');
    },
    announce(port: number): void {
      if (!demo) return;
      const base = `http://localhost:${port}`;
      process.stdout.write(
        [
          '',
          `Boxoffice API is running on an embedded PostgreSQL (data in ${shownDir}).`,
          `  API:          ${base}/api/v1`,
          `  Reference:    ${base}/docs`,
          `  Demo API key: ${demo.api_key}  (live data)`,
          ...(demo.test_api_key
            ? [`  Test API key: ${demo.test_api_key}  (test data, apart from the live data)`]
            : []),
          ...(demo.dashboard_email
            ? [
                `  Dashboard:    ${base}/dashboard  (sign in as ${demo.dashboard_email} / ${demo.dashboard_password})`,
              ]
            : []),
          '  Webhooks:     http:// and loopback URLs are accepted here (local development only)',
          '',
          'Try it:',
          `  curl -H "Authorization: Bearer ${demo.api_key}" "${base}/api/v1/events?limit=5"`,
          '',
        ].join('\n'),
      );
    },
  };
}
