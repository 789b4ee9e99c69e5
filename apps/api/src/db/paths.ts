import { existsSync } from 'node:fs';
import path from 'node:path';

/** The repository root (where pnpm-workspace.yaml is), or the working directory outside a checkout. */
export function projectRoot(): string {
  let dir = process.cwd();
  for (;;) {
    if (existsSync(path.join(dir, 'pnpm-workspace.yaml'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}

/** Where local state lives without DATABASE_URL: `DATA_DIR`, else `.data/` at the repository root. */
export function dataDirectory(configured: string | undefined): string {
  return path.resolve(configured ?? path.join(projectRoot(), '.data'));
}

/** The dashboard build of a checkout (`apps/dashboard/dist`), if it has been built. */
export function defaultDashboardDir(): string | undefined {
  const dir = path.join(projectRoot(), 'apps', 'dashboard', 'dist');
  return existsSync(path.join(dir, 'index.html')) ? dir : undefined;
}
