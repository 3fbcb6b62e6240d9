// Byte-exact text helpers shared by the console buffer and the messages of a run.

export const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

export const count = (n: number): string => n.toLocaleString('en-US');

/** The longest prefix of `text` that fits in `limit` UTF-8 bytes, never splitting a character. */
export function cutToBytes(text: string, limit: number): string {
  const buffer = Buffer.from(text, 'utf8');
  if (buffer.length <= limit) return text;
  let end = Math.max(0, limit);
  while (end > 0 && (buffer[end]! & 0xc0) === 0x80) end--;
  return buffer.subarray(0, end).toString('utf8');
}
