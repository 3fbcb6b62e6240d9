import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/fastify';
import { localhostAllowedHostnames, localhostAllowedOrigins } from '@modelcontextprotocol/server';

// Browser-side safety of the MCP endpoints (docs/decisions/089-mcp-sdk-2.md). A page that
// rebinds its own domain to 127.0.0.1 reaches a local service as if it were same-origin: the
// Host check refuses any name the service was not told it has. A page of another site may POST
// to us without CORS (a "simple" request): the Origin check refuses origins we don't know.
// Requests without an Origin (every non-browser client) pass it. Both answer 403 before auth.

export interface AllowLists {
  /** e.g. https://mcp.example.com: its hostname is ours */
  publicBaseUrl?: string;
  /** hostnames besides localhost and publicBaseUrl's (MCP_ALLOWED_HOSTS) */
  allowedHosts?: readonly string[];
  /** browser origins' hostnames besides localhost (MCP_ALLOWED_ORIGINS) */
  allowedOrigins?: readonly string[];
}

/** fastify onRequest hooks for the MCP routes: Host, then Origin. */
export function browserGuards({ publicBaseUrl, allowedHosts = [], allowedOrigins = [] }: AllowLists) {
  const ownHost = publicBaseUrl ? [new URL(publicBaseUrl).hostname] : [];
  return [
    hostHeaderValidation([...localhostAllowedHostnames(), ...ownHost, ...allowedHosts]),
    originValidation([...localhostAllowedOrigins(), ...allowedOrigins]),
  ];
}
