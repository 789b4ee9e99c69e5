import axe from 'axe-core';
import type { Page } from 'playwright-core';

declare global {
  interface Window {
    axe?: typeof axe;
  }
}

export type Impact = NonNullable<axe.ImpactValue>;

/**
 * What axe-core finds wrong on the page as it stands, one line per rule with the nodes it names;
 * only findings of `impacts` when given. Its source is evaluated by the harness: a `<script>`
 * added to the page (Playwright's `addScriptTag`) is inline, which the page's policy refuses.
 */
export async function accessibilityViolations(
  page: Page,
  impacts?: readonly Impact[],
): Promise<string[]> {
  await page.evaluate(axe.source);
  return page.evaluate(async (only) => {
    if (!window.axe) throw new Error('axe-core did not load into the page');
    const results = await window.axe.run(document, { resultTypes: ['violations'] });
    return results.violations
      .map((violation) => ({
        ...violation,
        nodes: violation.nodes.filter(
          (node) => !only || (node.impact && only.includes(node.impact)),
        ),
      }))
      .filter((violation) => violation.nodes.length > 0)
      .map(
        (violation) =>
          `${violation.id} (${violation.impact ?? 'no impact'}, ${violation.nodes.length} nodes): ` +
          violation.nodes
            .slice(0, 10)
            .map((node) => node.target.join(' '))
            .join(', '),
      );
  }, impacts);
}
