import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { freePort } from '../src/db/embedded';
import { spawnServer, untilServing } from './server-process';

/**
 * `pnpm dev`'s server as a real process whose output is a pipe, as in an IDE's run panel or
 * `pnpm dev | tee dev.log`: its lines are still the readable ones, not JSON records.
 */

const apiDir = path.resolve(import.meta.dirname, '..');

describe('the development server on a pipe', () => {
  it('writes readable lines, uncoloured, for its start and each request', async () => {
    const port = await freePort();
    const run = spawnServer(
      process.execPath,
      ['--import', 'tsx', '--conditions=@boxoffice/source', 'src/main.ts'],
      {
        cwd: apiDir,
        env: {
          PATH: process.env.PATH ?? '',
          NODE_ENV: 'development',
          LOG_LEVEL: 'info',
          // This run's migrated database: no embedded one to start, no demo data to seed.
          DATABASE_URL: inject('databaseUrl'),
          PORT: String(port),
          HOST: '127.0.0.1',
          WEBHOOK_WORKER: 'off',
        },
      },
    );
    try {
      await untilServing(run, port, 20_000);
      expect((await fetch(`http://127.0.0.1:${port}/api/v1/events`)).status).toBe(401);
    } finally {
      run.child.kill('SIGTERM');
    }
    expect((await run.exited).code).toBe(0);

    const output = run.output();
    const lines = output.trimEnd().split('\n');
    // pino-pretty's form: time, level and message first, the record's fields after them.
    const readable = /^\[\d{2}:\d{2}:\d{2}\] (INFO|WARN|ERROR): \S/;
    expect(lines.find((line) => line.includes('Boxoffice API listening'))).toMatch(readable);
    const request = lines.find((line) => line.includes('"route":"/api/v1/events"'));
    expect(request).toMatch(readable);
    expect(request).toMatch(/ INFO: request completed \{.*"status":401/);
    expect(lines.at(-1)).toMatch(/ INFO: stopped$/);
    // No line is a JSON record, and none carries a terminal's colour codes.
    expect(lines.filter((line) => line.startsWith('{'))).toEqual([]);
    expect(output).not.toContain('\u001b[');
  });
});
