import type { PageObserved, SyncCompleted } from '../../domain/observation/events.js';
import { Timeline } from './timeline.js';

// Observed pages of some datasets as a backtest folds them: each page of a scope on a timeline by
// its `observed_at`, and each complete read (`SyncCompleted`) by its own. A scope as of a moment is
// what the read models held then: the pages below the last complete read's count, each as last
// recorded by then (an unchanged page is not recorded again, so an older recording stands).

interface Page {
  rows: unknown[];
  observed_at: string;
}

/** A scope's complete read as of a moment. */
export interface ScopeRead {
  /** when the last complete read at or before the moment ended */
  completed_at: number;
  /** its pages in page order, each as last recorded by then */
  pages: Page[];
}

export class PagedHistory {
  private readonly pages = new Map<string, Map<number, Timeline<Page>>>();
  private readonly completions = new Map<string, Timeline<number>>();

  add(page: PageObserved): void {
    const key = scopeKey(page.dataset, page.scope);
    if (!this.pages.has(key)) this.pages.set(key, new Map());
    const byIndex = this.pages.get(key)!;
    if (!byIndex.has(page.page)) byIndex.set(page.page, new Timeline());
    byIndex.get(page.page)!.add(Date.parse(page.observed_at), { rows: page.rows, observed_at: page.observed_at });
  }

  complete(sync: SyncCompleted): void {
    const key = scopeKey(sync.dataset, sync.scope);
    if (!this.completions.has(key)) this.completions.set(key, new Timeline());
    this.completions.get(key)!.add(Date.parse(sync.observed_at), sync.pages);
  }

  /** The scope as the read models held it at `t`; null when no read of it had completed by then. */
  read(dataset: string, scope: string, t: number): ScopeRead | null {
    const completed = this.completions.get(scopeKey(dataset, scope))?.latest(t);
    if (!completed) return null;
    const byIndex = this.pages.get(scopeKey(dataset, scope));
    const pages: Page[] = [];
    for (let i = 0; i < completed.value; i++) {
      const page = byIndex?.get(i)?.latest(t)?.value;
      if (page) pages.push(page);
    }
    return { completed_at: completed.at, pages };
  }
}

const scopeKey = (dataset: string, scope: string) => `${dataset}\u0000${scope}`;
