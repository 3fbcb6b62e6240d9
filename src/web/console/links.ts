// Where console pages link: a filtered Activity page, and the receipt and event pages under it.

export const filterLink = (path: string, params: Record<string, string>) => `${path}?${new URLSearchParams(params)}`;

export const receiptPath = (activity: string, id: string) => `${activity}/receipts/${encodeURIComponent(id)}`;
export const eventPath = (activity: string, id: string) => `${activity}/events/${encodeURIComponent(id)}`;
