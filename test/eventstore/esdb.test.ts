import { EsdbEventStore } from '../../src/eventstore/esdb.js';
import { eventStoreContract } from './contract.js';

// Read at load time on purpose: whether the suite exists at all depends on it.
const url = process.env.EVENTSTORE_URL;

describe('event store contract: EventStoreDB adapter', () => {
  if (!url) {
    it('runs only when EVENTSTORE_URL is set (e.g. esdb://127.0.0.1:2113?tls=false)');
    return;
  }
  eventStoreContract(async () => new EsdbEventStore(url));
});
