import type { agentV1 } from '@llmgw/contracts';
import { closeSync, fstatSync, ftruncateSync, openSync, readSync } from 'node:fs';
import type { LogRing } from './log-ring';

/**
 * Follows one engine output file into a LogRing. Engines write to files,
 * never to pipes held by the agent, so an agent restart cannot kill them
 * with SIGPIPE; the agent reads what they wrote by polling. A file over
 * `maxBytes` is truncated (engines write with O_APPEND and carry on at the
 * new end).
 */
export class FileTail {
  private offset = 0;
  private partial = '';
  private skipFirst = false;

  constructor(
    private readonly path: string,
    private readonly stream: agentV1.LogStream__Output,
    private readonly ring: LogRing,
    private readonly now: () => number,
    private readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  /** Starts from the last `bytes` of what the file already holds (on adoption); the cut first line is skipped. */
  seekToTail(bytes = 256 * 1024): void {
    try {
      const fd = openSync(this.path, 'r');
      try {
        this.offset = Math.max(0, fstatSync(fd).size - bytes);
        this.skipFirst = this.offset > 0;
      } finally {
        closeSync(fd);
      }
    } catch {
      /* not written yet */
    }
  }

  /** Reads what was appended since the last poll. */
  poll(): void {
    let fd: number;
    try {
      fd = openSync(this.path, 'r+');
    } catch {
      return;
    }
    try {
      const size = fstatSync(fd).size;
      if (size < this.offset) this.offset = 0; // truncated under us
      if (size > this.offset) {
        const buf = Buffer.alloc(Math.min(size - this.offset, 4 * 1024 * 1024));
        const n = readSync(fd, buf, 0, buf.length, this.offset);
        this.offset += n;
        const text = this.partial + buf.subarray(0, n).toString('utf8');
        const parts = text.split('\n');
        this.partial = parts.pop() ?? '';
        if (this.skipFirst && parts.length) {
          parts.shift();
          this.skipFirst = false;
        }
        const at = this.now();
        for (const line of parts) this.ring.push(this.stream, line.replace(/\r$/, ''), at);
      }
      if (this.offset >= this.maxBytes) {
        ftruncateSync(fd, 0);
        this.offset = 0;
      }
    } finally {
      closeSync(fd);
    }
  }
}
