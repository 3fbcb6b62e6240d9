import { requireSupportedNode } from './infra/node-version.js';

// The service's entry point: the Node check, then the service (a dynamic import, since static
// imports would load everything before the check runs).
requireSupportedNode('npm start');
await import('./serve.js');
