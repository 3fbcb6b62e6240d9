import { randomUUID } from 'node:crypto';
import {
  acceptedContent,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  type InputRequests,
  type InputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Catalog, CatalogPrompt, CatalogTool } from '../../src/mcp/mcp-server.js';

// The tools, resources and prompts the official conformance suite's server scenarios call
// (`test_simple_text`, `test://static-text`, …), as a catalog for the service's own MCP server
// factory: the suite then judges our server, transport, limits and error mapping, not a server of
// its own. Ported from the SDK's reference fixture (typescript-sdk test/conformance/src/
// everythingServer.ts), whose texts the scenarios check. Tests only: `npm start` never serves it.

const IMAGE = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const AUDIO = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

// the echoed requestState is attacker-controlled: sealed with a key of this process, verified before any handler
const stateCodec = createRequestStateCodec<Record<string, unknown>>({
  key: crypto.getRandomValues(new Uint8Array(32)),
});

const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });

const tool = (
  name: string,
  description: string,
  call: (
    request: ServerContext,
  ) => CallToolResult | InputRequiredResult | Promise<CallToolResult | InputRequiredResult>,
): CatalogTool => ({
  name,
  listing: { name, description, inputSchema: { type: 'object', properties: {} } },
  call: async (_args, _ctx, request) => call(request),
});

const askName = (message = 'What is your name?', key = 'name') =>
  inputRequired.elicit({
    message,
    requestedSchema: { type: 'object', properties: { [key]: { type: 'string' } }, required: [key] },
  });
const askConfirm = () =>
  inputRequired.elicit({
    message: 'Please confirm',
    requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
  });
const ask = (question: string, maxTokens: number) =>
  inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: question } }], maxTokens });
const mint = (state: Record<string, unknown>) => stateCodec.mint({ ...state, nonce: randomUUID() });
const sampled = (request: ServerContext, key: string) =>
  (request.mcpReq.inputResponses?.[key] as { content?: { text?: string } } | undefined)?.content?.text;
const rootsOf = (request: ServerContext, key: string) =>
  (request.mcpReq.inputResponses?.[key] as { roots?: Array<{ uri?: string }> } | undefined)?.roots;
const pause = () => new Promise((resolve) => setTimeout(resolve, 50));

const TOOLS: CatalogTool[] = [
  tool('test_simple_text', 'Tests simple text content response', () =>
    text('This is a simple text response for testing.'),
  ),
  tool('test_image_content', 'Tests image content response', () => ({
    content: [{ type: 'image', data: IMAGE, mimeType: 'image/png' }],
  })),
  tool('test_audio_content', 'Tests audio content response', () => ({
    content: [{ type: 'audio', data: AUDIO, mimeType: 'audio/wav' }],
  })),
  tool('test_embedded_resource', 'Tests embedded resource content response', () => ({
    content: [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ],
  })),
  tool('test_multiple_content_types', 'Tests response with multiple content types (text, image, resource)', () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: IMAGE, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: {
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: JSON.stringify({ test: 'data', value: 123 }),
        },
      },
    ],
  })),
  tool('test_error_handling', 'Tests error response handling', () => ({
    isError: true,
    content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
  })),
  tool('test_tool_with_progress', 'Tests tool that reports progress notifications', async (request) => {
    // progress only for a client that asked for it with a token
    const progressToken = request.mcpReq._meta?.progressToken;
    if (progressToken !== undefined)
      for (const progress of [0, 50, 100]) {
        await request.mcpReq.notify({
          method: 'notifications/progress',
          params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` },
        });
        if (progress < 100) await pause();
      }
    return text(String(progressToken ?? 'no-progress-token'));
  }),
  tool('test_tool_with_logging', 'Tests tool that emits log messages during execution', async (request) => {
    for (const data of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
      await request.mcpReq.notify({ method: 'notifications/message', params: { level: 'info', data } });
      await pause();
    }
    return text('Tool with logging executed successfully');
  }),
  // the three diagnostics of the stateless scenario
  tool('test_missing_capability', 'Requires the sampling client capability', (request) =>
    request.mcpReq.inputResponses?.llm_answer === undefined
      ? inputRequired({ inputRequests: { llm_answer: ask('Reply with the single word: pong', 16) } })
      : text('sampling round-trip complete'),
  ),
  tool('test_streaming_elicitation', 'A response stream carrying no top-level requests', () =>
    text('stream observed: result frames only, no top-level requests'),
  ),
  tool('test_logging_tool', 'Logs through the request-scoped, logLevel-gated channel', async (request) => {
    await request.mcpReq.log('info', 'test_logging_tool ran (delivered only when the request set _meta.logLevel)');
    return text('logged through the request-scoped, logLevel-gated channel');
  }),
  // multi-round-trip requests (input_required)
  tool('test_input_required_result_elicitation', 'Asks for the caller name in band', (request) => {
    const name = acceptedContent<{ name: string }>(request.mcpReq.inputResponses, 'user_name')?.name;
    return typeof name === 'string'
      ? text(`Hello, ${name}!`)
      : inputRequired({ inputRequests: { user_name: askName() } });
  }),
  tool('test_input_required_result_sampling', 'Asks for an LLM completion in band', (request) => {
    const answer = request.mcpReq.inputResponses?.capital_question;
    return answer === undefined
      ? inputRequired({ inputRequests: { capital_question: ask('What is the capital of France?', 100) } })
      : text(`Sampling response: ${sampled(request, 'capital_question') ?? JSON.stringify(answer)}`);
  }),
  tool('test_input_required_result_list_roots', 'Asks for the client roots in band', (request) => {
    const roots = rootsOf(request, 'client_roots');
    return Array.isArray(roots)
      ? text(`Client exposed ${roots.length} root(s): ${roots.map((r) => r.uri).join(', ')}`)
      : inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
  }),
  tool('test_input_required_result_request_state', 'Round-trips sealed requestState', async (request) => {
    if (acceptedContent<{ ok: boolean }>(request.mcpReq.inputResponses, 'confirm') === undefined)
      return inputRequired({
        inputRequests: { confirm: askConfirm() },
        requestState: await mint({ tool: 'request_state' }),
      });
    if (request.mcpReq.requestState() === undefined)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid requestState: missing or failed verification');
    return text('state-ok: requestState verified and confirmation received');
  }),
  tool(
    'test_input_required_result_multiple_inputs',
    'Asks for elicitation, sampling and roots at once',
    async (request) => {
      const name = acceptedContent<{ name: string }>(request.mcpReq.inputResponses, 'user_name')?.name;
      const greeting = sampled(request, 'greeting');
      const roots = rootsOf(request, 'client_roots');
      if (typeof name === 'string' && typeof greeting === 'string' && Array.isArray(roots))
        return text(`${greeting} ${name} — ${roots.length} root(s) visible`);
      return inputRequired({
        inputRequests: {
          user_name: askName(),
          greeting: ask('Generate a greeting', 50),
          client_roots: inputRequired.listRoots(),
        },
        requestState: await mint({ tool: 'multiple_inputs' }),
      });
    },
  ),
  tool(
    'test_input_required_result_multi_round',
    'Two elicitation rounds with evolving requestState',
    async (request) => {
      const state = request.mcpReq.requestState<Record<string, unknown>>();
      const round = state?.tool === 'multi_round' && typeof state.round === 'number' ? state.round : 0;
      if (round === 0)
        return inputRequired({
          inputRequests: { step1: askName('Step 1: What is your name?') },
          requestState: await mint({ tool: 'multi_round', round: 1 }),
        });
      if (round === 1) {
        const name = acceptedContent<{ name: string }>(request.mcpReq.inputResponses, 'step1')?.name ?? 'unknown';
        return inputRequired({
          inputRequests: { step2: askName('Step 2: What is your favorite color?', 'color') },
          requestState: await mint({ tool: 'multi_round', round: 2, name }),
        });
      }
      const color = acceptedContent<{ color: string }>(request.mcpReq.inputResponses, 'step2')?.color ?? 'unknown';
      return text(`Multi-round complete: ${String(state?.name ?? 'unknown')} likes ${color}`);
    },
  ),
  tool(
    'test_input_required_result_tampered_state',
    'Refuses retries whose requestState fails verification',
    async (request) =>
      request.mcpReq.requestState() !== undefined &&
      acceptedContent(request.mcpReq.inputResponses, 'confirm') !== undefined
        ? text('integrity-ok: requestState verified')
        : inputRequired({
            inputRequests: { confirm: askConfirm() },
            requestState: await mint({ tool: 'tampered_state' }),
          }),
  ),
  tool('test_input_required_result_capabilities', 'Asks only for what the client declared', (request) => {
    if (request.mcpReq.inputResponses !== undefined) return text('Capability-aware input requests fulfilled');
    // the SDK's public types hide the envelope's members
    const envelope = request.mcpReq.envelope as Record<string, Record<string, unknown> | undefined> | undefined;
    const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY];
    const inputRequests: InputRequests = {
      ...(declared?.elicitation !== undefined ? { user_name: askName() } : {}),
      ...(declared?.sampling !== undefined ? { greeting: ask('Generate a short greeting', 50) } : {}),
      ...(declared?.roots !== undefined ? { client_roots: inputRequired.listRoots() } : {}),
    };
    return Object.keys(inputRequests).length === 0
      ? text('No declared client capability supports an in-band input request')
      : inputRequired({ inputRequests });
  }),
];

const userText = (t: string) => ({ role: 'user' as const, content: { type: 'text' as const, text: t } });
const prompt = (
  name: string,
  title: string,
  get: CatalogPrompt['get'],
  args: Array<{ name: string; description: string }> = [],
): CatalogPrompt => ({
  listing: { name, title, description: title, arguments: args.map((a) => ({ ...a, required: true })) },
  get,
});

const PROMPTS: CatalogPrompt[] = [
  prompt('test_simple_prompt', 'Simple Test Prompt', async () => ({
    messages: [userText('This is a simple prompt for testing.')],
  })),
  prompt(
    'test_prompt_with_arguments',
    'Prompt With Arguments',
    async (args) => ({ messages: [userText(`Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`)] }),
    [
      { name: 'arg1', description: 'First test argument' },
      { name: 'arg2', description: 'Second test argument' },
    ],
  ),
  prompt(
    'test_prompt_with_embedded_resource',
    'Prompt With Embedded Resource',
    async (args) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: args.resourceUri!,
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        userText('Please process the embedded resource above.'),
      ],
    }),
    [{ name: 'resourceUri', description: 'URI of the resource to embed' }],
  ),
  prompt('test_prompt_with_image', 'Prompt With Image', async () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: IMAGE, mimeType: 'image/png' } },
      userText('Please analyze the image above.'),
    ],
  })),
  prompt('test_input_required_result_prompt', 'MRTR Prompt', async (_args, request) => {
    const context = acceptedContent<{ context: string }>(request.mcpReq.inputResponses, 'user_context')?.context;
    return typeof context === 'string'
      ? { messages: [userText(`Use the following context: ${context}`)] }
      : inputRequired({ inputRequests: { user_context: askName('What context should the prompt use?', 'context') } });
  }),
];

const TEMPLATE = /^test:\/\/template\/([^/]+)\/data$/;

export const CONFORMANCE_FIXTURE: Catalog = {
  tools: TOOLS,
  resources: [
    {
      listing: {
        uri: 'test://static-text',
        name: 'static-text',
        title: 'Static Text Resource',
        mimeType: 'text/plain',
      },
      read: () => ({
        contents: [
          {
            uri: 'test://static-text',
            mimeType: 'text/plain',
            text: 'This is the content of the static text resource.',
          },
        ],
      }),
    },
    {
      listing: {
        uri: 'test://static-binary',
        name: 'static-binary',
        title: 'Static Binary Resource',
        mimeType: 'image/png',
      },
      read: () => ({ contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: IMAGE }] }),
    },
  ],
  resourceTemplates: [
    {
      listing: { uriTemplate: 'test://template/{id}/data', name: 'template', mimeType: 'application/json' },
      read: (uri) => {
        const id = TEMPLATE.exec(uri)?.[1];
        if (id === undefined) return undefined;
        const data = { id, templateTest: true, data: `Data for ID: ${id}` };
        return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(data) }] };
      },
    },
  ],
  prompts: PROMPTS,
  complete: () => ({ completion: { values: [], total: 0, hasMore: false } }),
  requestState: { verify: stateCodec.verify },
};
