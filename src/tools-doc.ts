import { writeFileSync } from 'node:fs';
import { renderToolsDoc } from './mcp/tools-doc.js';
import { TOOLS } from './mcp/tools/index.js';

// `npm run docs:tools`: rewrites docs/tools.md from the served tool table.
const path = new URL('../../docs/tools.md', import.meta.url);
writeFileSync(path, renderToolsDoc(TOOLS));
console.log(`wrote ${path.pathname} (${TOOLS.length} tools)`);
