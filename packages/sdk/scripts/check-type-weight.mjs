// Type-checks a small program on the built SDK (type-weight/consumer.ts, as a user's project with
// `skipLibCheck: false`) and fails if it costs more type instantiations than the budget: the SDK
// must stay light in its users' editors and builds.
//
//   pnpm --filter @boxoffice/sdk run size      (after the build; CI runs it)
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BUDGET = 60_000;
const here = dirname(fileURLToPath(import.meta.url));
const project = join(here, '../type-weight');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

const result = spawnSync(process.execPath, [tsc, '-p', project, '--extendedDiagnostics'], {
  encoding: 'utf8',
});
const output = `${result.stdout}${result.stderr}`;
const instantiations = Number(/^Instantiations:\s+(\d+)/m.exec(output)?.[1]);
if (result.status !== 0 || !Number.isFinite(instantiations)) {
  console.error(output);
  console.error('type-weight: the consumer program does not type-check against the built SDK');
  process.exit(1);
}
const verdict = instantiations < BUDGET ? 'within' : 'OVER';
console.log(
  `type-weight: ${instantiations.toLocaleString('en')} type instantiations for type-weight/consumer.ts (${verdict} the budget of ${BUDGET.toLocaleString('en')})`,
);
if (instantiations >= BUDGET) process.exit(1);
