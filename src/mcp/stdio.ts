import { requireSupportedNode } from '../infra/node-version.js';

// The stdio server's entry point: the Node check, then the server (a dynamic import, since
// static imports would load everything before the check runs).
requireSupportedNode('npm run start:stdio');
await import('./stdio-server.js');
