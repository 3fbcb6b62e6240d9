import { requireSupportedNode } from './infra/node-version.js';

// The operator CLI's entry point: the Node check, then the commands (a dynamic import, since
// static imports would load everything before the check runs).
requireSupportedNode('npm run cli -- <command>');
await import('./cli-commands.js');
