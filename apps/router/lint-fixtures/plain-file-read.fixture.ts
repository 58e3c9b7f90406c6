// Allowed: reading a file in a file that has nothing to do with TLS.
import { readFileSync } from 'node:fs';

export const stat = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8');
