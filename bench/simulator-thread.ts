import { parentPort, workerData } from 'node:worker_threads';
import { createSimulator, type Scale } from '../src/marketplace/simulator/index.js';

// The bench's marketplace on its own thread: in production the marketplace is remote, so its
// work (routing, generating, serializing answers) must not share the service's event loop.
const { seed, scale } = workerData as { seed: number; scale: Scale };
const simulator = createSimulator({ seed, scale });
const base = await simulator.listen();
parentPort!.postMessage({ base });
parentPort!.once('message', () => void simulator.close().then(() => process.exit(0)));
