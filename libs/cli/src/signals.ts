/**
 * Resolves once the process is asked to stop (SIGINT or SIGTERM) and `close`
 * has finished: the graceful shutdown every long-running role shares.
 */
export function untilSignal(close: () => Promise<unknown>): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void close().then(
        () => resolve(),
        () => resolve(),
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
