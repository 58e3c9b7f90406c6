/**
 * The contract of a part of the stack `llmgw up` runs: the options, the
 * context parts share, and what a started part hands back.
 */
import type { Logger } from '@llmgw/observability';
import type { UpPki } from './tls';

export interface UpOptions {
  host: string;
  port: number;
  adminPort: number;
  accountingPort: number;
  admissionPort: number;
  routers: number;
  engines: number;
  model: string;
  dataDir: string;
  auth: boolean;
  admission: boolean;
  redisUrl?: string;
  databaseUrl?: string;
  decodeTps: number;
  logLevel: string;
  /**
   * Today's fixed-endpoint mode: sim-engines started directly, no control plane. Otherwise (the default)
   * inventory, the placement-scheduler and two fake-GPU node-agents place and serve the demo catalog.
   */
  static?: boolean;
  /** The placement-scheduler's ControlService (what `llmgw ctl` dials by default); not with --static. */
  controlPort?: number;
  /** The ports engines are given, [low, high]; not with --static. */
  enginePorts?: [number, number];
  /** The portal's port; default 8090, or any free port when `port` is 0. */
  portalPort?: number;
}

/** What the parts started so far publish for the parts after them. */
export interface UpContext {
  readonly o: UpOptions;
  readonly log: Logger;
  endpoints: Array<{ name: string; url: string; model: string; engine: 'vllm'; max_num_seqs?: number }>;
  accountingUrl?: string;
  admissionUrl?: string;
  routerUrls: string[];
  /** The demo key's secret when this start created it (it is shown once). */
  demoKey?: string;
  /** True when the demo key already existed (its secret is not kept). */
  demoKeyExisted: boolean;
  /**
   * With the control plane: where routers and admission read the endpoints the placement-scheduler
   * publishes: Redis with --redis-url, else this process's in-process state under the same prefix.
   */
  endpointSource?: { kind: 'redis'; redis_url: string; key_prefix: string } | { kind: 'memory'; key_prefix: string };
  /** With the control plane: the placement-scheduler's ControlService. */
  controlUrl?: string;
  /** With the control plane: the demo model's placed replicas once ready, "<replica id> on <node>". */
  demoReplicas?: string[];
  /** The first admin's sign-in when this start created it (shown once). */
  firstAdmin?: { email: string; password?: string };
  /** The portal's URL. */
  portalUrl?: string;
  /** /metrics of the routers and admission, for the portal's traffic page. */
  metricsUrls: string[];
  /** Where `llmgw ctl` finds this stack's addresses (`<data-dir>/ctl.yaml`). */
  ctlConfig?: string;
  /** With --fleet: `<data-dir>/engine.key`, from which the scheduler and the routers derive each replica's engine secret. */
  engineKeyFile?: string;
  /** The local CA and role certificates every link uses (mTLS), in <data-dir>/tls. */
  tls?: UpPki;
  /** With the control plane: points the placement-scheduler's autoscaler at admission once admission runs. */
  attachAdmission?: (address: string) => void;
}

export interface StartedPart {
  /** Lines for the "llmgw is up" banner. */
  summary: string[];
  close(): Promise<unknown>;
}

export interface Part {
  name: string;
  /**
   * Starts the part's services, handing each to `add` as soon as it runs (so
   * that a later failure still closes it). A part that options turn off adds
   * a summary saying so and a no-op close.
   */
  start(ctx: UpContext, add: (s: StartedPart) => void): Promise<void>;
}
