/** The Node major the service is built for: isolated-vm's binary and the sandbox runners need it. */
export const NODE_MAJOR = 24;

/**
 * Ends the process with one line naming the Node it needs and `command` (an npm script, which
 * runs on the pinned Node) when this is another Node. Each entry point calls it before it
 * imports anything else, so nothing built for Node 24 loads first.
 */
export function requireSupportedNode(command: string): void {
  const found = process.versions.node;
  if (Number(found.split('.')[0]) === NODE_MAJOR) return;
  process.stderr.write(
    `This service needs Node ${NODE_MAJOR} (found v${found}): run it with \`${command}\` (which uses the pinned Node ${NODE_MAJOR})\n`,
  );
  process.exit(1);
}
