import type { Catalog } from '../catalog.js';
import type { SellingData } from '../selling/data.js';
import type { FictionalVendor } from '../vendor.js';
import type { JobOutcome } from './jobs.js';

/** Who holds the access token: the fictional seller or the fictional vendor. */
export type Principal = 'seller' | 'vendor';

/** A createReport body (Reports API 2021-06-30 CreateReportSpecification). */
export interface ReportRequest {
  reportType: string;
  marketplaceIds: string[];
  dataStartTime?: string;
  dataEndTime?: string;
  reportOptions: Record<string, string>;
}

/** What report data is derived from; `asOf` is the simulator's clock when the report was requested. */
export interface ReportSource {
  seed: number;
  catalog: Catalog;
  vendor: FictionalVendor;
  merchantId: string;
  /** the seller's orders and listings, as the selling APIs serve them */
  selling: Pick<SellingData, 'orders' | 'listings'>;
  asOf: number;
}

export interface ReportType {
  principal: Principal;
  produce(request: ReportRequest, source: ReportSource): JobOutcome;
}

export const fatal = (message: string): JobOutcome => ({ kind: 'fatal', message });
export const jsonDocument = (body: unknown): JobOutcome => ({ kind: 'document', body: JSON.stringify(body) });
