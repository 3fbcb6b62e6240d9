import { statementCounter } from './statements.js';

// Loaded with `node --import` into a service process the benchmark starts with an IPC channel
// (bench/automations/live-workers.ts): counts the process's statements from start-up and answers
// the benchmark's 'statements' message with the count so far, so the benchmark takes a window's
// count as the difference of two answers. Nothing of it is in the service's own code.

const count = statementCounter();
process.on('message', (message) => {
  if (message === 'statements') process.send!({ statements: count() });
});
// the channel must not keep the process alive once the service has stopped
process.channel?.unref();
