import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

/** Debian's Chromium, never a downloaded one. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

/** Every browser the suites drive is launched here: `CHROMIUM_PATH`, else Debian's Chromium. */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  // Playwright's own message for a missing browser points at a download; the suites use the system's.
  if (!existsSync(executablePath)) {
    throw new Error(
      `The browser tests need Chromium, and there is none at ${executablePath}: install it (apt install chromium on Debian or Ubuntu; elsewhere, any Chrome or Chromium) or set CHROMIUM_PATH to its executable.`,
    );
  }
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
}

declare global {
  interface Window {
    reportCspViolation?: (description: string) => void;
  }
}

/**
 * Collects every Content-Security-Policy violation in the context's pages: the documents'
 * `securitypolicyviolation` events, and the browser's "Refused to …" console messages.
 */
export async function recordCspViolations(context: BrowserContext): Promise<string[]> {
  const violations: string[] = [];
  await context.exposeBinding('reportCspViolation', (_source, description: string) => {
    violations.push(description);
  });
  // Init scripts run before the page's own scripts and are not subject to its policy.
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      window.reportCspViolation?.(
        `${event.documentURI}: ${event.effectiveDirective} refused ${event.blockedURI || 'inline'}` +
          ` (${event.sourceFile}:${event.lineNumber}:${event.columnNumber})`,
      );
    });
  });
  context.on('console', (message) => {
    const text = message.text();
    if (/Refused to|Content Security Policy/i.test(text)) violations.push(text);
  });
  return violations;
}
