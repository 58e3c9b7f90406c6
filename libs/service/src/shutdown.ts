import type { Logger } from '@llmgw/observability';

/** One step of an ordered shutdown; `signal` aborts when the drain deadline has passed (cut what is left). */
export type CloseStep = (signal: AbortSignal) => Promise<unknown> | unknown;

/** How long a step may still take once the drain deadline has passed, before it is abandoned. */
export const AFTER_DEADLINE_MS = 1_000;

/**
 * Steps run in reverse order of registration: what started last (the
 * listeners) stops first, so nothing is stopped while something still uses it.
 * Every step runs even when one fails; past `drainMs` the signal aborts, each
 * remaining step gets AFTER_DEADLINE_MS, and whatever still hangs is logged and
 * left behind so the process can exit.
 */
export class Shutdown {
  private readonly steps: Array<{ name: string; fn: CloseStep }> = [];
  private running?: Promise<void>;

  constructor(private readonly log: Logger) {}

  add(name: string, fn: CloseStep): void {
    if (this.running) throw new Error(`shutdown already started; cannot add "${name}"`);
    this.steps.push({ name, fn });
  }

  get started(): boolean {
    return this.running !== undefined;
  }

  run(drainMs: number): Promise<void> {
    return (this.running ??= this.runSteps(drainMs));
  }

  private async runSteps(drainMs: number): Promise<void> {
    const ac = new AbortController();
    const deadline = setTimeout(() => ac.abort(new Error(`drain deadline of ${drainMs} ms passed`)), drainMs);
    deadline.unref();
    try {
      while (this.steps.length) {
        const { name, fn } = this.steps.pop()!;
        const done = Promise.resolve()
          .then(() => fn(ac.signal))
          .then(
            () => 'done' as const,
            (e) => {
              this.log.warn({ err: e, step: name }, 'shutdown step failed');
              return 'done' as const;
            },
          );
        const abandon = abandonAfterDeadline(ac.signal);
        const outcome = await Promise.race([done, abandon.outcome]);
        abandon.cancel();
        if (outcome === 'abandoned') this.log.error({ step: name, drainMs }, 'shutdown step still running after the drain deadline; abandoned');
      }
    } finally {
      clearTimeout(deadline);
    }
  }
}

/**
 * `outcome` never settles before the deadline; AFTER_DEADLINE_MS after it, it
 * resolves 'abandoned'. `cancel` (once the step is done) drops its abort
 * listener and timer, so many steps do not pile listeners on one signal.
 */
function abandonAfterDeadline(signal: AbortSignal): { outcome: Promise<'abandoned'>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  let arm = () => undefined as void;
  const outcome = new Promise<'abandoned'>((resolve) => {
    arm = () => void (timer = setTimeout(() => resolve('abandoned'), AFTER_DEADLINE_MS).unref());
  });
  if (signal.aborted) arm();
  else signal.addEventListener('abort', arm, { once: true });
  return {
    outcome,
    cancel() {
      signal.removeEventListener('abort', arm);
      clearTimeout(timer);
    },
  };
}
