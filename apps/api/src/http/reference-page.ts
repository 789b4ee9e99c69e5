import express from 'express';
import { notFoundHandler } from './error-handler';
import { REFERENCE_BUNDLE, referenceAssetsDir } from './reference-assets';
import { contentSecurityPolicy } from './security-headers';
import { staticFiles } from './static-files';

/** Where the reference page and its files are served. */
export const REFERENCE_PATH = '/docs';
const SCRIPT = 'reference.js';
const STYLES = 'reference.css';
const ASSETS = 'assets';

/**
 * Scalar's configuration: the document of this server, and nothing that reaches another origin:
 * no web fonts, telemetry, AI agent or MCP (they call Scalar's services), no button that opens the
 * document in Scalar's hosted client, no developer toolbar.
 */
const configuration = {
  url: '/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  hideClientButton: true,
};

const escapeHtml = (text: string): string =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;');

// No inline script (the CSP allows this origin's script files only): the page loads one small
// module, which reads the configuration from the mount point's data attribute.
const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="robots" content="noindex" />
    <link rel="icon" href="data:," />
    <title>Boxoffice API reference</title>
    <link rel="stylesheet" href="${REFERENCE_PATH}/${STYLES}" />
    <script type="module" src="${REFERENCE_PATH}/${SCRIPT}"></script>
  </head>
  <body>
    <nav aria-label="Boxoffice" style="display: flex; flex-wrap: wrap; gap: 0.4rem 1.25rem; align-items: baseline; padding: 0.5rem 1rem; font: 15px/1.5 system-ui, sans-serif; background: #fff; border-bottom: 1px solid #d9dee6">
      <a href="/" style="font-weight: 700; color: #1c2330; text-decoration: none">Boxoffice</a>
      <a href="/dashboard/" style="color: #2449ad">Dashboard: your API keys and plan</a>
    </nav>
    <div id="reference" data-configuration="${escapeHtml(JSON.stringify(configuration))}"></div>
    <noscript>The Boxoffice API reference needs JavaScript; the document is at /openapi.json.</noscript>
  </body>
</html>
`;

// Scalar validates with zod, which probes whether it may compile code (`Function('')`) unless
// told to run without: under `script-src 'self'` that probe would be a reported CSP violation.
// The bundle is imported only after that setting, hence the dynamic import.
const script = `globalThis.__zod_globalConfig = { ...globalThis.__zod_globalConfig, jitless: true };
const { createApiReference } = await import('${REFERENCE_PATH}/${ASSETS}/${REFERENCE_BUNDLE}');

const mount = document.getElementById('reference');
createApiReference(mount, JSON.parse(mount.dataset.configuration));

// What Scalar has no option for, on whatever it renders: a code block that scrolls sideways gets a
// tab stop, so a keyboard can scroll it; a code block's copy button, whose label is hidden until
// hovered (or absent), gets a name.
const complete = () => {
  for (const code of document.querySelectorAll('pre > code:not([tabindex])')) code.tabIndex = 0;
  for (const button of document.querySelectorAll('button[class*="copy-button"]:not([aria-label])')) {
    button.setAttribute('aria-label', 'Copy');
  }
};
// One pass a frame, however much Scalar changed in it.
let queued = false;
new MutationObserver(() => {
  if (queued) return;
  queued = true;
  requestAnimationFrame(() => {
    queued = false;
    complete();
  });
}).observe(document.body, { childList: true, subtree: true });
complete();
`;

// Scalar's themes, light and dark (it follows the system's, and has a switch), with every text
// colour at a contrast of at least 4.5:1 on the backgrounds it is drawn on (WCAG AA). Scalar
// injects its own theme after this file, hence !important.
const styles = `.light-mode {
  --scalar-color-2: #5c5c5c !important;
  --scalar-color-3: #666666 !important;
  --scalar-color-accent: #0069b4 !important;
  --scalar-color-blue: #0b64b4 !important;
  --scalar-color-green: #03684b !important;
  --scalar-color-yellow: #8a5a00 !important;
  --scalar-color-orange: #b53c0a !important;
  --scalar-color-red: #c0181d !important;
  --scalar-color-purple: #5203d1 !important;
  --scalar-color-query: #006b70 !important;
}
.dark-mode {
  --scalar-color-3: #a4a4a4 !important;
}
/* The tab stops given to code blocks show where focus is. */
.scalar-app pre > code:focus-visible {
  outline: 2px solid var(--scalar-color-accent);
  outline-offset: -2px;
}
`;

/**
 * The API reference at `/docs`, self-contained: the page, its start-up module and Scalar's bundle
 * all come from this server, so it renders offline and under a `script-src 'self'` policy.
 */
export function referencePage(assetsDir: string = referenceAssetsDir()): express.Router {
  const router = express.Router();
  // Scalar injects its stylesheet and positions popovers with inline styles.
  const policy = contentSecurityPolicy({ 'style-src': ["'unsafe-inline'"] });
  router.get('/', policy, (_req, res) => {
    res.set('Cache-Control', 'no-cache').type('html').send(page);
  });
  router.get(`/${SCRIPT}`, (_req, res) => {
    res.set('Cache-Control', 'no-cache').type('text/javascript').send(script);
  });
  router.get(`/${STYLES}`, (_req, res) => {
    res.set('Cache-Control', 'no-cache').type('text/css').send(styles);
  });
  // Scalar's chunks carry a content hash in their names; its entry module does not.
  router.use(
    `/${ASSETS}`,
    staticFiles(assetsDir, { index: false, redirect: false, hashedDir: 'chunks' }),
  );
  // Anything else (other methods included) gets the JSON 404, not the router's automatic answers.
  router.use(notFoundHandler);
  return router;
}
