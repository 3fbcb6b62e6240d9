import { gzipSync } from 'node:zlib';

// Asynchronous report jobs shared by the Reports API and Data Kiosk: a job reads IN_QUEUE at
// the first status read, IN_PROGRESS at the second, and is finished at the third: its document
// is built then, from the data as it stood when the job was created. Both the job list and the
// documents are bounded (oldest dropped; documents by count and by bytes, since a bulk report of
// a large seller is megabytes), so a long-running simulator keeps little memory.

export type ProcessingStatus = 'IN_QUEUE' | 'IN_PROGRESS' | 'DONE' | 'FATAL' | 'CANCELLED';

/** What a finished job produced: a document body, nothing (no data: CANCELLED), or a fatal error. */
export type JobOutcome =
  | { kind: 'document'; body: string; /** Data Kiosk: the next page's paginationToken */ nextToken?: string }
  | { kind: 'empty' }
  | { kind: 'fatal'; message: string };

/** Reports API documents are gzip-compressed; Data Kiosk's are plain JSON lines. */
export type JobApi = 'reports' | 'dataKiosk';

export interface Job {
  id: string;
  api: JobApi;
  /** The principal that created it (a seller or the vendor): others can't read it. */
  owner: string;
  createdAt: string;
  status: ProcessingStatus;
  processingStartTime?: string;
  processingEndTime?: string;
  documentId?: string;
  /** Data Kiosk: an error document for FATAL queries. */
  errorDocumentId?: string;
  /** Data Kiosk: the token of the results' next page, when the document holds only part of them */
  nextToken?: string;
  reads: number;
  produce: () => JobOutcome;
}

/** A job at its terminal status, named as the finished-processing notifications name it. */
export interface FinishedJob {
  api: JobApi;
  id: string;
  owner: string;
  /** the report type, or the query text */
  subject: string;
  processingStatus: ProcessingStatus;
  documentId?: string;
  errorDocumentId?: string;
}

export interface StoredDocument {
  owner: string;
  body: Buffer;
  /** served compressed, announced as compressionAlgorithm GZIP */
  gzip: boolean;
}

export interface JobStore {
  create(api: JobApi, owner: string, createdAt: string, produce: () => JobOutcome): Job;
  /** A status read: advances the job and returns it (undefined if unknown or not the owner's). */
  read(id: string, owner: string, now: string): Job | undefined;
  cancel(id: string, owner: string): Job | undefined;
  /** While paused, jobs stay IN_PROGRESS (a slow marketplace, for tests of polling). */
  setPaused(paused: boolean): void;
  document(id: string): StoredDocument | undefined;
}

/** `onFinished` hears of every job that reached DONE, CANCELLED or FATAL by processing (the
 * finished-processing notifications). */
export function createJobStore(
  onFinished: (job: Job) => void = () => {},
  limit = 5_000,
  documentLimit = 200,
  documentBytes = 256 * 2 ** 20,
): JobStore {
  const jobs = new Map<string, Job>();
  const documents = new Map<string, StoredDocument>();
  let storedBytes = 0;
  // A marketplace never gives an id twice, a restarted one neither: a client still holding an id
  // of the last run must hear 404, not read another report. Ids start where the wall clock is
  // (a thousand a second), past those of any earlier run that made fewer.
  let seq = (Math.floor(Date.now() / 1000) % 1_000_000) * 1000;
  let paused = false;
  const bound = <V>(map: Map<string, V>, max: number) => {
    while (map.size > max) map.delete(map.keys().next().value!);
  };
  return {
    create(api, owner, createdAt, produce) {
      seq += 1;
      const id = String(50_000_000_000 + seq);
      const job: Job = { id, api, owner, createdAt, status: 'IN_QUEUE', reads: 0, produce };
      jobs.set(id, job);
      bound(jobs, limit);
      return job;
    },
    read(id, owner, now) {
      const job = jobs.get(id);
      if (!job || job.owner !== owner) return undefined;
      job.reads += 1;
      if (job.reads === 1) return job;
      if (job.status === 'IN_QUEUE') {
        job.status = 'IN_PROGRESS';
        job.processingStartTime = now;
      } else if (job.status === 'IN_PROGRESS' && !paused) {
        const outcome = job.produce();
        job.processingEndTime = now;
        const gzip = job.api === 'reports';
        const store = (documentId: string, body: string) => {
          const stored = { owner, gzip, body: gzip ? gzipSync(body) : Buffer.from(body) };
          documents.set(documentId, stored);
          storedBytes += stored.body.length;
          while (documents.size > documentLimit || (storedBytes > documentBytes && documents.size > 1)) {
            const [oldest, dropped] = documents.entries().next().value!;
            documents.delete(oldest);
            storedBytes -= dropped.body.length;
          }
          return documentId;
        };
        if (outcome.kind === 'document') {
          job.status = 'DONE';
          job.documentId = store(`amzn1.spdoc.1.4.na.${job.id}`, outcome.body);
          if (outcome.nextToken) job.nextToken = outcome.nextToken;
        } else if (outcome.kind === 'empty') {
          // the Reports API cancels a report without data; Data Kiosk finishes without a document
          job.status = job.api === 'reports' ? 'CANCELLED' : 'DONE';
        } else {
          job.status = 'FATAL';
          const id = store(`amzn1.spdoc.1.4.na.${job.id}.error`, JSON.stringify({ errorDetails: outcome.message }));
          if (job.api === 'reports') job.documentId = id;
          else job.errorDocumentId = id;
        }
        onFinished(job);
      }
      return job;
    },
    cancel(id, owner) {
      const job = jobs.get(id);
      if (!job || job.owner !== owner) return undefined;
      if (job.status === 'IN_QUEUE') job.status = 'CANCELLED';
      return job;
    },
    document: (id) => documents.get(id),
    setPaused(value) {
      paused = value;
    },
  };
}
