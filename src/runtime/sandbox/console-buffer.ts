import { RUN_LIMITS } from '../contracts/limits.js';
import { bytes, count, cutToBytes } from './text.js';
import type { LogLevel, LogLine } from './types.js';

// The run's console (spec 4.11.5, 8): 100 lines of up to 2,000 bytes. The isolate sends each line
// as it is written (already cut to a bounded length), so a run that times out keeps its lines.
// A longer line is cut and says so; when lines were dropped, the last line says how many.

const LEVELS: ReadonlySet<string> = new Set<LogLevel>(['log', 'info', 'warn', 'error']);

export class ConsoleBuffer {
  private readonly kept: LogLine[] = [];

  constructor(
    private readonly maxLines: number = RUN_LIMITS.consoleLines,
    private readonly maxBytes: number = RUN_LIMITS.consoleLineBytes,
  ) {}

  /** One line from the isolate (`chars`: its length before the isolate cut it); answers whether more fit. */
  readonly add = (level: unknown, text: unknown, chars: unknown): boolean => {
    if (this.kept.length >= this.maxLines) return false;
    const line = typeof text === 'string' ? text : '';
    const written = typeof chars === 'number' && chars > line.length ? chars : line.length;
    this.kept.push({
      level: typeof level === 'string' && LEVELS.has(level) ? (level as LogLevel) : 'log',
      message: this.fit(line, written),
    });
    return this.kept.length < this.maxLines;
  };

  /** The lines, the last one replaced by a note when `dropped` more lines did not fit. */
  lines(dropped = 0): LogLine[] {
    const lines = [...this.kept];
    if (dropped > 0 && lines.length === this.maxLines)
      lines[lines.length - 1] = {
        level: 'warn',
        message: `[console: ${count(dropped + 1)} more lines were dropped; a run keeps ${count(this.maxLines)} lines]`,
      };
    return lines;
  }

  private fit(line: string, chars: number): string {
    const size = bytes(line);
    if (chars === line.length && size <= this.maxBytes) return line;
    const was = chars > line.length ? `${count(chars)} characters` : `${count(size)} bytes`;
    const note = ` …[truncated: the line had ${was}; a console line keeps ${count(this.maxBytes)} bytes]`;
    return cutToBytes(line, this.maxBytes - bytes(note)) + note;
  }
}
