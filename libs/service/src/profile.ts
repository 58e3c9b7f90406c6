import { Session } from 'node:inspector/promises';

/** A profile is already being taken in this process (one inspector profiler per process). */
export class ProfileBusyError extends Error {
  constructor() {
    super('a CPU profile is already being taken in this process; try again when it finishes');
    this.name = 'ProfileBusyError';
  }
}

let busy = false;

/** Samples this process's CPU for `ms` and returns the V8 profile as JSON text (.cpuprofile). */
export async function cpuProfile(ms: number): Promise<string> {
  if (busy) throw new ProfileBusyError();
  busy = true;
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    await new Promise((r) => setTimeout(r, ms));
    const { profile } = await session.post('Profiler.stop');
    return JSON.stringify(profile);
  } finally {
    session.disconnect();
    busy = false;
  }
}
