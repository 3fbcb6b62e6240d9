import { createRequire } from 'node:module';
import { escapeHtml, Html } from '../../page.js';

// An automation's code highlighted on the server (highlight.js: its HTML escapes the code and adds
// only <span class="hljs-…">), with a small theme of our own: every colour has at least 4.5:1
// contrast on the block's background (#f6f8fa), and nothing depends on colour alone.

// Loaded with require and typed here: highlight.js's own types pull the DOM library into the
// whole program (`/// <reference lib="dom" />`), whose fetch types then shadow Node's.
interface Highlighter {
  registerLanguage(name: string, language: unknown): void;
  highlight(code: string, options: { language: string; ignoreIllegals: boolean }): { value: string };
}
const require = createRequire(import.meta.url);
const hljs = require('highlight.js/lib/core') as Highlighter;
hljs.registerLanguage('javascript', require('highlight.js/lib/languages/javascript'));

/** The code as highlighted HTML inside <pre><code>. */
export function highlighted(code: string, label: string): Html {
  const body = hljs.highlight(code, { language: 'javascript', ignoreIllegals: true }).value;
  return new Html(
    `<pre class="code" tabindex="0" role="region" aria-label="${escapeHtml(label)}"><code class="hljs">${body}</code></pre>`,
  );
}

/** contrast on #f6f8fa: keyword 5.0, string 12.0, number 7.1, comment 6.0, title 6.9, attr 6.9 */
export const HIGHLIGHT_STYLE = `
pre.code, pre.diff { background: #f6f8fa; color: #1f2328; padding: 0.75rem; border: 1px solid #d0d7de;
  border-radius: 4px; overflow-x: auto; white-space: pre; font-size: 0.875rem; }
.hljs-keyword, .hljs-built_in, .hljs-literal { color: #cf222e; }
.hljs-string, .hljs-regexp { color: #0a3069; }
.hljs-number { color: #0550ae; }
.hljs-comment { color: #57606a; font-style: italic; }
.hljs-title, .hljs-title.function_ { color: #6639ba; }
.hljs-attr, .hljs-property, .hljs-params { color: #953800; }
`;
