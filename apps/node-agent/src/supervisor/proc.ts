import { readFileSync, readdirSync } from 'node:fs';

/** The fields of /proc/<pid>/stat the supervisor relies on. */
export interface ProcStat {
  pid: number;
  /** One-letter state (R, S, D, Z, …). */
  state: string;
  ppid: number;
  pgid: number;
  /** Start time in clock ticks since boot: with the pid, it names one process for the life of the machine. */
  startTime: number;
}

/**
 * Parses /proc/<pid>/stat. The command name (field 2) is in parentheses and
 * may itself contain spaces and parentheses, so fields are counted from the
 * last ')'.
 */
export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  const f = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  // After the name: 3 state, 4 ppid, 5 pgrp, … 22 starttime → indices 0, 1, 2, … 19.
  if (f.length < 20) return undefined;
  const st = { pid, state: f[0], ppid: Number(f[1]), pgid: Number(f[2]), startTime: Number(f[19]) };
  return Number.isInteger(st.pid) && Number.isFinite(st.startTime) ? st : undefined;
}

/** /proc/<pid>/stat of a live process; undefined when there is none (or it is a zombie). */
export function readProcStat(pid: number, procRoot = '/proc'): ProcStat | undefined {
  try {
    const st = parseProcStat(readFileSync(`${procRoot}/${pid}/stat`, 'utf8'));
    return st && st.state !== 'Z' ? st : undefined;
  } catch {
    return undefined;
  }
}

/** True while any process of group `pgid` exists. */
export function groupAlive(pgid: number): boolean {
  if (pgid <= 1) return false;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Signals a whole process group; false when it no longer exists. Never signals group 0 or 1. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  if (pgid <= 1) return false;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Pids of live processes in group `pgid` (for cleaning a group whose leader is gone). */
export function groupMembers(pgid: number, procRoot = '/proc'): ProcStat[] {
  const out: ProcStat[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(procRoot);
  } catch {
    return out;
  }
  for (const n of names) {
    if (!/^\d+$/.test(n)) continue;
    const st = readProcStat(Number(n), procRoot);
    if (st && st.pgid === pgid) out.push(st);
  }
  return out;
}
