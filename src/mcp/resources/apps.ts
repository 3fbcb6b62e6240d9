import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import { html, page, type Html } from '../../web/page.js';
import type { CatalogResource } from '../mcp-server.js';
import { automationActivityApp, salesPerDayApp, type AppKit } from './app-scripts.js';

// MCP Apps (the ext-apps extension, SEP-1865; beyond the interface spec): `ui://` pages a host
// shows beside the answer of the tool that links them (docs/decisions/159-mcp-apps.md). Each page
// is self-contained (nothing to fetch): ext-apps' App class, the console's chart drawing as
// compiled, and the app's own function (app-scripts.ts), inlined in one module script. The app
// reads through the tools, over the host's `tools/call`, never around them.

export const SALES_APP_URI = 'ui://console/sales-per-day.html';
export const ACTIVITY_APP_URI = 'ui://console/automation-activity.html';

/** A tool listing's `_meta` linking an app, in both spellings ext-apps' registerAppTool writes. */
export const appLink = (uri: string) => ({ ui: { resourceUri: uri }, [RESOURCE_URI_META_KEY]: uri });

/** The console's stylesheet, as page.ts writes it: the apps look like the console. */
const consoleStyle = () => /<style>[\s\S]*?<\/style>/.exec(page({ title: '' }, html``))![0];

/** Compiled modules the apps run as they are, each of them importing only those before it. */
const BROWSER_MODULES = [
  '../../domain/shared/calendar.js',
  '../../domain/shared/marketplaces.js',
  '../../web/page.js',
  '../../web/console/chart.js',
].map((path) => new URL(path, import.meta.url));

const withoutSourceMap = (js: string) => js.replace(/^\/\/# sourceMappingURL=.*$/m, '');

/**
 * BROWSER_MODULES as one expression of all their exports: each module a function scope, its
 * imports read from the modules before it. tsc writes imports and exports one a line; anything
 * else fails here, at the first read, rather than in a host.
 */
function browserModules(): string {
  const scopes = new Map<string, string>();
  const parts = BROWSER_MODULES.map((url, i) => {
    const exported: string[] = [];
    const body = withoutSourceMap(readFileSync(url, 'utf8'))
      .replace(/^import \{([^}]*)\} from '([^']+)';$/gm, (_, names: string, from: string) => {
        const scope = scopes.get(new URL(from, url).href);
        if (!scope) throw new Error(`${url.pathname} imports ${from}, which the apps do not inline`);
        return `const {${names.replace(/\s+as\s+/g, ': ')}} = ${scope};`;
      })
      .replace(
        /^export ((?:async )?(?:class|function|const|let) ([\w$]+))/gm,
        (_, declaration: string, name: string) => {
          exported.push(name);
          return declaration;
        },
      );
    if (/^(?:import|export)\b/m.test(body))
      throw new Error(`${url.pathname}: an import or export the apps cannot inline`);
    scopes.set(url.href, `m${i}`);
    return `const m${i} = (() => {\n${body}\nreturn { ${exported.join(', ')} };\n})();`;
  });
  return `(() => {\n${parts.join('\n')}\nreturn { ${[...scopes.values()].map((s) => `...${s}`).join(', ')} };\n})()`;
}

/** ext-apps' App class from its browser bundle (every dependency inside), as an expression. */
function extAppsApp(): string {
  const file = fileURLToPath(import.meta.resolve('@modelcontextprotocol/ext-apps/app-with-deps'));
  const bundle = withoutSourceMap(readFileSync(file, 'utf8'));
  const exports = /export\s*\{([^}]*)\}\s*;?\s*$/.exec(bundle);
  const app = exports && /(?:^|,)\s*([\w$]+)\s+as\s+App\s*(?=,|$)/.exec(exports[1]!);
  if (!exports || !app) throw new Error(`${file} no longer ends by exporting App: see apps.ts`);
  return `(() => {\n${bundle.slice(0, exports.index)}\nreturn ${app[1]};\n})()`;
}

/** A script's text inside <script>: `</script` ends the element wherever it stands. */
const scriptText = (js: string) => js.replace(/<\/(script)/gi, '<\\/$1');

function appPage(title: string, body: Html, app: (kit: AppKit) => void): string {
  const script = `const App = ${extAppsApp()};
const web = ${browserModules()};
(${app.toString()})({ App, ...web, doc: document });`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>${html`${title}`}</title>
${consoleStyle()}
</head>
<body class="wide">
<main>
<h1>${html`${title}`}</h1>
${body}
</main>
<script type="module">
${scriptText(script)}
</script>
</body>
</html>
`;
}

function appResource(
  uri: string,
  listing: { name: string; title: string; description: string },
  body: Html,
  app: (kit: AppKit) => void,
): CatalogResource {
  let text: string | undefined;
  return {
    listing: { uri, mimeType: RESOURCE_MIME_TYPE, ...listing },
    // built at the first read (the bundle is half a megabyte), the same for everyone after
    read: () => ({
      contents: [{ uri, mimeType: RESOURCE_MIME_TYPE, text: (text ??= appPage(listing.title, body, app)) }],
    }),
  };
}

const status = (waiting: string) => html`<p id="status" role="status">${waiting}</p>`;

export const APP_RESOURCES: readonly CatalogResource[] = [
  appResource(
    SALES_APP_URI,
    {
      name: 'sales-per-day',
      title: 'Sales per day',
      description:
        "MCP App (ext-apps) for get_sales_summary: the console Overview's confirmed sales per day chart, each day read through get_sales_summary",
    },
    html`${status('Waiting for the answer of get_sales_summary…')}
      <div id="charts"></div>`,
    salesPerDayApp,
  ),
  appResource(
    ACTIVITY_APP_URI,
    {
      name: 'automation-activity',
      title: 'Automation activity',
      description:
        "MCP App (ext-apps) for list_automation_actions: an automation's recent actions per day and the newest of them, read through list_automation_actions",
    },
    html`${status('Waiting for the answer of list_automation_actions…')}
      <p><button id="refresh" type="button">Refresh</button></p>
      <div id="chart"></div>
      <div id="actions"></div>`,
    automationActivityApp,
  ),
];
