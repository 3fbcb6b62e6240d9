/** A name as a quoted SQL identifier (a double quote in it doubled), for names that can't be bound. */
export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;
