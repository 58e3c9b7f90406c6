/** What a shard waiting for its weights reports (ShardStatus.download, `ctl replicas`). */
export interface DownloadProgress {
  bytesDone: number;
  bytesTotal: number;
  /** Bytes per second over the last few seconds. */
  rateBps: number;
  /** Estimated time left at that rate; 0 when unknown. */
  etaMs: number;
}

/** Bytes over a sliding window, for the rate and ETA. */
export class ProgressMeter {
  private done = 0;
  private readonly samples: Array<[number, number]> = [];
  constructor(
    readonly total: number,
    private readonly now: () => number,
    private readonly windowMs = 5_000,
  ) {
    this.samples.push([now(), 0]);
  }

  add(n: number): void {
    this.done = Math.max(0, this.done + n);
    const t = this.now();
    this.samples.push([t, this.done]);
    while (this.samples.length > 2 && t - this.samples[1][0] > this.windowMs) this.samples.shift();
  }

  get bytesDone(): number {
    return this.done;
  }

  snapshot(): DownloadProgress {
    const t = this.now();
    const [t0, b0] = this.samples[0];
    // At least a second, so the first burst does not read as the rate.
    const dt = Math.max(1, (t - t0) / 1000);
    const rate = Math.max(0, (this.done - b0) / dt);
    const left = Math.max(0, this.total - this.done);
    return { bytesDone: this.done, bytesTotal: this.total, rateBps: Math.round(rate), etaMs: rate > 0 ? Math.round((left / rate) * 1000) : 0 };
  }
}

/** "1.2 GiB/4.0 GiB 35 MiB/s ETA 1m20s" */
export function formatProgress(p: DownloadProgress): string {
  const eta = p.etaMs > 0 ? ` ETA ${formatEta(p.etaMs)}` : '';
  return `${formatBytes(p.bytesDone)}/${formatBytes(p.bytesTotal)} ${formatBytes(p.rateBps)}/s${eta}`;
}

export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

function formatEta(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
