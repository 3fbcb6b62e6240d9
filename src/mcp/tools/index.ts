import type { Tool } from '../tool.js';
import { connectionStatus } from './connection_status.js';

/** Every tool the MCP endpoints serve, in listing order. */
export const TOOLS: readonly Tool[] = [connectionStatus];
