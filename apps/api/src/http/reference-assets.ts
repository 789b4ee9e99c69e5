import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Scalar's browser files, served at `/docs/assets`, and where they are read from: the one place
 * the build (tsdown.config.ts, which copies them) and the server, built or run from sources, ask.
 *
 * The page loads the ES module build of the pinned `@scalar/api-reference`
 * (`dist/browser/standalone.esm.js`), which imports its chunks (`chunks/`) on demand; a browser's
 * developer tools fetch their source maps. The package's `dist/browser` also holds a UMD build
 * (`standalone.js` and its map, about 21 MB) that nothing loads: the build leaves it out.
 */

/** The ES module the page's start-up script imports. */
export const REFERENCE_BUNDLE = 'standalone.esm.js';

/** What the build copies from the package's `dist/browser`, files and a directory (about 22 MB). */
export const REFERENCE_ASSETS = [REFERENCE_BUNDLE, `${REFERENCE_BUNDLE}.map`, 'chunks'] as const;

/** Where the build puts them, relative to the built server's directory (`dist/scalar/`). */
export const REFERENCE_ASSETS_DIR = 'scalar';

/**
 * The package's `dist/browser` in node_modules, what the build copies from. The package is a
 * development dependency: a `pnpm deploy --prod` (the image) does not have it.
 */
export function scalarBrowserDir(): string {
  const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
  return path.join(path.dirname(entry), 'browser');
}

const moduleDir = path.dirname(fileURLToPath(import.meta.url));

/**
 * The directory served at `/docs/assets`: the build's copy beside the built server (`dir` is then
 * dist/, where the bundle is); else, running from sources (tsx, vitest: `dir` is src/http/), the
 * package's `dist/browser` itself, which also has the UMD build the copy leaves out.
 */
export function referenceAssetsDir(dir: string = moduleDir): string {
  const built = path.join(dir, REFERENCE_ASSETS_DIR);
  if (existsSync(path.join(built, REFERENCE_BUNDLE))) return built;
  let source: string;
  try {
    source = scalarBrowserDir();
  } catch {
    throw new Error(
      `no ${REFERENCE_BUNDLE} in ${built} (the build copies it there), and no @scalar/api-reference to serve it from`,
    );
  }
  if (!existsSync(path.join(source, REFERENCE_BUNDLE))) {
    throw new Error(`@scalar/api-reference has no ${REFERENCE_BUNDLE} in ${source}`);
  }
  return source;
}
