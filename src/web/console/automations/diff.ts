import { structuredPatch } from 'diff';
import { html, type Html } from '../../page.js';

// Two code versions as a unified diff (the `diff` package's hunks, 3 lines of context): removed
// lines in <del>, added ones in <ins>, each also marked - or +, so that colour is not the only sign.

export function versionDiff(from: { version: number; code: string }, to: { version: number; code: string }): Html {
  const patch = structuredPatch(`v${from.version}`, `v${to.version}`, from.code, to.code, '', '', { context: 3 });
  if (patch.hunks.length === 0) return html`<p>Versions ${from.version} and ${to.version} have the same code.</p>`;
  const line = (l: string) =>
    l.startsWith('+') ? html`<ins>${l}</ins>` : l.startsWith('-') ? html`<del>${l}</del>` : html`<span>${l}</span>`;
  // one block per line: no newline inside the <pre> for a formatter to move
  const lines = patch.hunks.flatMap((h) => [
    html`<span class="hunk">@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@</span>`,
    ...h.lines.filter((l) => !l.startsWith('\\')).map(line),
  ]);
  return html`<pre
    class="diff"
    tabindex="0"
    role="region"
    aria-label="Changes from version ${from.version} to version ${to.version}"
  >
${lines}</pre>`;
}

/** #1f2328 text on these backgrounds: 13:1 and more */
export const DIFF_STYLE = `
pre.diff ins, pre.diff del, pre.diff span { display: block; text-decoration: none; min-height: 1.2em; }
pre.diff ins { background: #dafbe1; }
pre.diff del { background: #ffebe9; }
pre.diff .hunk { color: #57606a; }
`;
