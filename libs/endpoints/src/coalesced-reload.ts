/**
 * A reload that never runs twice at once: a request that comes while one
 * runs makes it run once more when it ends (what changed meanwhile is read
 * too), and every caller waits for that last run. The endpoint and catalog
 * readers re-read Redis through it on each change message, poll and
 * reconnect, however close together those come.
 */
export class CoalescedReload {
  private running?: Promise<void>;
  private again = false;

  constructor(
    private readonly read: () => Promise<void>,
    /** True once the owner is closed: no further runs after the current one. */
    private readonly stopped: () => boolean,
  ) {}

  run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.read();
      } while (this.again && !this.stopped());
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Resolves once no run is in progress (failures included): what close() waits for. */
  async settled(): Promise<void> {
    await this.running?.catch(() => undefined);
  }
}
