import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { generateKey } from '../modules/api-keys/api-key.service';
import { seedDemoData } from '../modules/demo/demo-data';
import { createOrganisation } from '../modules/organisations/organisation.service';
import { startEmbeddedPostgres } from './embedded';
import type { Orm } from './orm';
import { projectRoot } from './paths';

interface DemoCredentials {
  organisation_id: string;
  api_key: string;
}

/**
 * The zero-configuration database of `pnpm start`: an embedded PostgreSQL under `.data/`, and on
 * its first start a demo organisation (Pro plan) with seed data and an API key. The key is kept in
 * `.data/demo.json` so later starts can print it again; this file exists only for the local demo.
 */
export async function startEmbeddedDatabase(config: Config, logger: Logger) {
  const dataDir = path.resolve(config.DATA_DIR ?? path.join(projectRoot(), '.data'));
  const pgDir = path.join(dataDir, 'postgres');
  const credentialsFile = path.join(dataDir, 'demo.json');
  logger.info({ dataDir: pgDir }, 'starting embedded PostgreSQL');
  const db = await startEmbeddedPostgres({ dataDir: pgDir });
  let demo: DemoCredentials | null = null;

  return {
    url: db.url,
    stop: () => db.stop(),
    async prepareDemo(orm: Orm): Promise<void> {
      if (existsSync(credentialsFile)) {
        demo = JSON.parse(await readFile(credentialsFile, 'utf8')) as DemoCredentials;
        return;
      }
      const em = orm.em.fork();
      const org = await createOrganisation(em, { name: 'Demo Promotions', plan: 'pro' });
      const { key } = await generateKey(em, {
        organisationId: org.id,
        name: 'Demo key',
        scopes: ['read', 'write', 'checkins:write'],
      });
      const counts = await seedDemoData(em, org.id, {});
      demo = { organisation_id: org.id, api_key: key };
      await writeFile(credentialsFile, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
      logger.info({ organisationId: org.id, ...counts }, 'demo organisation seeded');
    },
    announce(port: number): void {
      if (!demo) return;
      const base = `http://localhost:${port}`;
      process.stdout.write(
        [
          '',
          'Boxoffice API is running on an embedded PostgreSQL (data in .data/).',
          `  API:          ${base}/api/v1`,
          `  Reference:    ${base}/docs`,
          `  Demo API key: ${demo.api_key}`,
          '',
          'Try it:',
          `  curl -H "Authorization: Bearer ${demo.api_key}" "${base}/api/v1/events?limit=5"`,
          '',
        ].join('\n'),
      );
    },
  };
}
