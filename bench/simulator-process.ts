import { createSimulator, type SimulatorOptions } from '../src/marketplace/simulator/index.js';
import { memorySample } from './support.js';

// The bench's marketplace in a process of its own: in production the marketplace is remote, so
// its work (routing, generating, serializing answers, building reports) must not share the
// service's event loop, nor its memory figures. It tells its parent its base URL, then its
// memory every few seconds and once more when told to close.
const simulator = createSimulator(JSON.parse(process.argv[2]!) as Pick<SimulatorOptions, 'seed' | 'scale'>);
const base = await simulator.listen();
process.send!({ base });
setInterval(() => process.send!({ memory: memorySample() }), 5_000).unref();
// the benchmark gone (killed, crashed), the marketplace goes too
process.once('disconnect', () => process.exit(0));
process.once(
  'message',
  () => void simulator.close().then(() => process.send!({ memory: memorySample() }, () => process.exit(0))),
);
