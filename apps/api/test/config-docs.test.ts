import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../src/config';

/** The environment the server reads, documented where operators look: README.md and compose. */

const read = (file: string) => readFileSync(fileURLToPath(new URL(file, import.meta.url)), 'utf8');
const configKeys = Object.keys(ConfigSchema.shape).sort();

/** The rows (cells) of the table headed `| Variable |` in the README's "Deploying" section. */
function documentedVariables(): string[][] {
  const readme = read('../../../README.md');
  const start = readme.indexOf('\n## Deploying\n');
  expect(start, 'README.md has a "## Deploying" section').toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 1);
  const lines = readme.slice(start, end === -1 ? undefined : end).split('\n');
  const header = lines.findIndex((line) => /^\|\s*Variable\s*\|/.test(line));
  expect(header, 'the Deploying section has a "| Variable |" table').toBeGreaterThan(-1);
  const rows: string[][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

describe('configuration docs', () => {
  it('README.md documents exactly the variables of ConfigSchema', () => {
    const rows = documentedVariables();
    const names = rows.map(([name]) => /^`([A-Z][A-Z0-9_]*)`$/.exec(name ?? '')?.[1] ?? name);
    expect(names.length, 'no variable is listed twice').toBe(new Set(names).size);
    expect([...names].sort()).toEqual(configKeys);
    for (const [name, byDefault, meaning] of rows) {
      expect(byDefault, `${name} has a default (or —)`).toBeTruthy();
      expect(meaning, `${name} has a meaning`).toBeTruthy();
    }
  });

  it("docker-compose.yml sets only variables the server reads on the API's services", () => {
    const compose = read('../../../docker-compose.yml').split('\n');
    const api = compose.findIndex((line) => line.startsWith('x-api:'));
    expect(api, 'docker-compose.yml has an x-api block').toBeGreaterThan(-1);
    const environment = compose.findIndex((line, i) => i > api && line === '  environment:');
    expect(environment, 'x-api has an environment map').toBeGreaterThan(-1);
    const names: string[] = [];
    for (const line of compose.slice(environment + 1)) {
      if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
      const entry = /^ {4}([A-Za-z_][A-Za-z0-9_]*):/.exec(line);
      if (!entry) break;
      names.push(entry[1]!);
    }
    expect(names).toContain('DATABASE_URL');
    expect(names.filter((name) => !configKeys.includes(name))).toEqual([]);
  });
});
