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

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
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
