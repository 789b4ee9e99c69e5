/**
 * The server process's entry. It turns on Node's compile cache before loading the server: V8's
 * compiled code for the bundle is kept on disk (`node-compile-cache` in the system's temporary
 * directory, or `NODE_COMPILE_CACHE`), so a start that finds it skips compiling the bundle again
 * (README.md, Deploying › Start-up). A directory that cannot be written leaves the cache off.
 *
 * `node dist/main.js --compile-cache` loads the server's code, writes the cache and exits without
 * serving: the image runs it at build, so that every container's first start finds the cache.
 * `node dist/main.js --openapi` writes the OpenAPI document beside the bundle and exits: the build
 * runs it (tsdown.config.ts), and the server serves that file at `/openapi.json`.
 */
import { enableCompileCache, flushCompileCache } from 'node:module';
import { fileURLToPath } from 'node:url';

enableCompileCache();
/** The OpenAPI document beside the bundle (`dist/openapi.json`): the build writes it. */
const openApiFile = fileURLToPath(new URL('openapi.json', import.meta.url));
const mode = process.argv[2];
if (mode === '--openapi') {
  const { writeOpenApiDocument } = await import('./http/openapi');
  await writeOpenApiDocument(openApiFile);
} else {
  const { start } = await import('./serve');
  if (mode === '--compile-cache') flushCompileCache();
  else start({ openApiFile });
}
