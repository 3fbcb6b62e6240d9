import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { Frame, Page } from 'playwright-core';

// An MCP Apps host for browser tests, as a chat client would be one: a page the test serves holds
// the app in a sandboxed iframe (scripts only, no origin of its own) and relays the app's
// postMessage traffic; ext-apps' AppBridge, in the test process, speaks the host's side of the
// protocol and forwards the app's tools/call to the service over MCP HTTP.

const HOST = 'http://mcp-app-host.test/';
const HOST_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8" /><title>MCP App host</title>
<style>body { margin: 0; } iframe { border: 0; width: 100%; display: block; }</style></head>
<body>
<iframe sandbox="allow-scripts" title="MCP App"></iframe>
<script>
  const app = document.querySelector('iframe');
  window.addEventListener('message', (e) => {
    if (e.source === app.contentWindow) window.toHost(e.data);
  });
</script>
</body>
</html>`;

/** the iframe, as much of it as the relay uses (the tests' TypeScript has no DOM types) */
interface AppFrame {
  srcdoc: string;
  style: { height: string };
  contentWindow: { postMessage(message: unknown, targetOrigin: string): void };
}

export interface AppHost {
  /** the app's document */
  frame: Frame;
  /** each tools/call the app made through the host, with the service's answer */
  calls: Array<{ name: string; arguments: Record<string, unknown>; answer: CallToolResult }>;
  close(): Promise<void>;
}

/** Shows `html` (an app resource's text) as the view of the tool call `call` answered with `answer`. */
export async function hostApp(
  page: Page,
  html: string,
  client: Client,
  call: { name: string; arguments: Record<string, unknown> },
  answer: CallToolResult,
): Promise<AppHost> {
  const relay: Transport = {
    start: async () => undefined,
    send: async (message: JSONRPCMessage) => {
      await page
        .locator('iframe')
        .evaluate((el, m) => (el as unknown as AppFrame).contentWindow.postMessage(m, '*'), message);
    },
    close: async () => relay.onclose?.(),
  };
  await page.exposeFunction('toHost', (message: JSONRPCMessage) => relay.onmessage?.(message));
  await page.route(HOST, (route) => route.fulfill({ contentType: 'text/html', body: HOST_PAGE }));
  await page.goto(HOST);

  const bridge = new AppBridge(null, { name: 'test host', version: '1.0.0' }, { serverTools: {} });
  const calls: AppHost['calls'] = [];
  bridge.oncalltool = async (params) => {
    const answer = (await client.callTool(params)) as CallToolResult;
    calls.push({ name: params.name, arguments: params.arguments ?? {}, answer });
    return answer;
  };
  // as a chat client does: the frame as tall as the app says it is
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined)
      void page.locator('iframe').evaluate((el, h) => ((el as unknown as AppFrame).style.height = `${h}px`), height);
  };
  const initialized = new Promise<void>((resolve) => bridge.addEventListener('initialized', () => resolve()));
  await bridge.connect(relay);
  await page.locator('iframe').evaluate((el, text) => ((el as unknown as AppFrame).srcdoc = text), html);
  await initialized;
  await bridge.sendToolInput({ arguments: call.arguments });
  await bridge.sendToolResult(answer);
  return { frame: page.frames().find((f) => f !== page.mainFrame())!, calls, close: () => bridge.close() };
}
