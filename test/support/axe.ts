import axe from 'axe-core';
import { expect } from 'chai';
import type { Frame, Page } from 'playwright-core';

// axe-core's accessibility check in a page or frame a browser test has open: what it finds of
// impact serious or critical fails the test, each violation named with the elements it saw.

const BLOCKING = new Set(['serious', 'critical']);

/** The serious and critical violations axe-core finds in what `where` shows now. */
export async function seriousViolations(where: Page | Frame): Promise<axe.Result[]> {
  if (!(await where.evaluate(() => 'axe' in globalThis))) await where.addScriptTag({ content: axe.source });
  const { violations } = await where.evaluate(() =>
    (globalThis as unknown as { axe: typeof axe }).axe.run({ resultTypes: ['violations'] }),
  );
  return violations.filter((v) => BLOCKING.has(v.impact ?? ''));
}

/** Fails with each serious or critical violation, for `what` (e.g. "Overview at phone width"). */
export async function expectAccessible(where: Page | Frame, what: string): Promise<void> {
  const found = await seriousViolations(where);
  const report = found.map(
    (v) =>
      `${v.impact} ${v.id}: ${v.help}\n${v.nodes.map((n) => `  ${n.target.join(' ')}: ${n.failureSummary ?? ''}`).join('\n')}`,
  );
  expect(report, `accessibility of ${what}`).to.deep.equal([]);
}
