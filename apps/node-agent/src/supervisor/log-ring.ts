import type { agentV1 } from '@llmgw/contracts';

/** Longest line kept, in characters (LogLine documents 16 KiB). */
export const MAX_LINE = 16 * 1024;

/** The last N lines of one shard's output (or of the agent's own log), for `llmgw ctl logs`. */
export class LogRing {
  private readonly lines: agentV1.LogLine__Output[] = [];
  /** Lines pushed out of the ring since it was made. */
  private dropped = 0;

  constructor(readonly capacity: number) {}

  push(stream: agentV1.LogStream__Output, text: string, atMs: number): void {
    this.lines.push({ atMs, stream, text: text.length > MAX_LINE ? text.slice(0, MAX_LINE) : text });
    if (this.lines.length > this.capacity) {
      this.lines.splice(0, this.lines.length - this.capacity);
      this.dropped++;
    }
  }

  get size(): number {
    return this.lines.length;
  }

  /**
   * The most recent `tail` lines at or after `sinceMs`, oldest first.
   * `truncated` when lines that would have matched have left the ring.
   */
  read(tail: number, sinceMs = 0): { lines: agentV1.LogLine__Output[]; truncated: boolean } {
    const matching = sinceMs ? this.lines.filter((l) => l.atMs >= sinceMs) : this.lines;
    const n = Math.max(0, Math.min(tail, matching.length));
    const oldestKept = this.lines[0]?.atMs ?? Infinity;
    const truncated = this.dropped > 0 && (sinceMs === 0 ? tail > matching.length : sinceMs < oldestKept);
    return { lines: matching.slice(matching.length - n), truncated };
  }
}
