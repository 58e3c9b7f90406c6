/**
 * The tenancy path as real processes, the way the accounting integration specs
 * set it up: accounting on a PostgreSQL database and Redis, an org → team →
 * project to hang keys on, and routers with tenancy on (docs/accounting.md).
 * Each spec keeps its own scenario; this is only the common setup.
 */
import { AccountingClient, type AccountingMethod } from '@llmgw/accounting-rpc';
import type { accountingV1 } from '@llmgw/contracts';
import type Redis from 'ioredis';
import { writeFileSync } from 'node:fs';
import { spawnRole, type SpawnedRole } from './process';

export const TEST_REDIS_URL = 'redis://127.0.0.1:6379';

export interface AccountingProcessOptions {
  databaseUrl: string;
  /** Redis key prefix, the spec's own. */
  keyPrefix: string;
  /** The ledger consumer name. */
  consumer: string;
  /** 0 (the default) picks a free port; the old one restarts accounting where routers look for it. */
  port?: number;
  /** Further flags (`--config`, `--log-level`). */
  args?: string[];
}

/** Accounting as a real process. */
export function startAccountingProcess(o: AccountingProcessOptions): Promise<SpawnedRole> {
  return spawnRole('accounting', [
    '--port',
    String(o.port ?? 0),
    '--admin-port',
    '0',
    '--database-url',
    o.databaseUrl,
    '--redis-url',
    TEST_REDIS_URL,
    '--key-prefix',
    o.keyPrefix,
    '--consumer',
    o.consumer,
    ...(o.args ?? []),
  ]);
}

/** host:port of a role's gRPC listener. */
export const grpcAddress = (p: SpawnedRole): string => new URL(p.urls.grpc).host;

/** An admin session on accounting, with the project every key of a spec is created in. */
export class TenancyAdmin {
  readonly client: AccountingClient;
  teamId = '';
  projectId = '';

  constructor(
    address: string,
    private readonly actor: string,
    callTimeoutMs?: number,
  ) {
    this.client = new AccountingClient({ address, callTimeoutMs });
  }

  call<T>(method: AccountingMethod, req: object): Promise<T> {
    return this.client.call<T>(method, req, { actor: this.actor });
  }

  /** Creates org "acme", team "ml" and project "chat"; later keys go into the project. */
  async seedProject(): Promise<this> {
    await this.call('CreateOrg', { name: 'acme' });
    this.teamId = (await this.call<accountingV1.Team__Output>('CreateTeam', { org: 'acme', name: 'ml' })).id;
    this.projectId = (await this.call<accountingV1.Project__Output>('CreateProject', { team: this.teamId, name: 'chat' })).id;
    return this;
  }

  /** A new key in the project (with a key-scoped limit when given): its id and its secret. */
  async newKey(name: string, limit?: object): Promise<{ id: string; secret: string }> {
    const k = await this.call<accountingV1.CreatedKey__Output>('CreateKey', { project: this.projectId, name });
    if (limit) await this.call('SetLimit', { scope: { scopeType: 'key', scope: k.key!.id }, limit });
    return { id: k.key!.id, secret: k.secret };
  }

  close(): void {
    this.client.close();
  }
}

/** Writes a router config with tenancy on against accounting at `accountingAddress`; `tenancy` lines go under `tenancy:` as written. */
export function writeTenancyRouterConfig(file: string, o: { accountingAddress: string; keyPrefix: string; tenancy?: string[] }): string {
  const lines = [
    'tenancy:',
    '  enabled: true',
    `  accounting_address: "${o.accountingAddress}"`,
    `  redis_url: "${TEST_REDIS_URL}"`,
    `  key_prefix: "${o.keyPrefix}"`,
    ...(o.tenancy ?? []),
  ];
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** `n` routers on `config`, serving model "m" from the sim-engine at `simUrl`. */
export function startTenancyRouters(n: number, config: string, simUrl: string, args: string[] = []): Promise<SpawnedRole[]> {
  const all = ['--config', config, '--endpoint', `sim=${simUrl}=m`, '--port', '0', '--admin-port', '0', ...args];
  return Promise.all(Array.from({ length: n }, () => spawnRole('router', all)));
}

/** The usage stream under `keyPrefix` is drained: nothing waiting, nothing read and unacknowledged. */
export async function ledgerDrained(redis: Redis, keyPrefix: string): Promise<boolean> {
  const len = await redis.xlen(`${keyPrefix}usage`);
  const pend = (await redis.xpending(`${keyPrefix}usage`, 'accounting').catch(() => [0])) as unknown[];
  return len === 0 && Number(pend[0] ?? 0) === 0;
}

/** Deletes every Redis key under `keyPrefix` (a spec's cleanup). */
export async function dropKeyPrefix(redis: Redis, keyPrefix: string): Promise<void> {
  const keys = await redis.keys(`${keyPrefix}*`);
  if (keys.length) await redis.del(...keys);
}

/**
 * A load client's pause after a refused or reset connection: a killed router
 * answers at once, and a client that retried at once would only spin. Pacing
 * of the workload, not a wait for an event.
 */
export const backOffAfterRefusal = (): Promise<void> => new Promise((r) => setTimeout(r, 20));
