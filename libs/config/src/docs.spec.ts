import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { accountingConfigSchema } from './accounting';
import { inventoryConfigSchema } from './inventory';
import { placementSchedulerConfigSchema } from './placement-scheduler';
import { admissionServiceConfigSchema } from './admission';
import { loadConfigFile, parseConfig } from './load';
import { routerConfigSchema } from './router';
import { routerTenancySchema } from './router-tenancy';
import { simEngineConfigSchema } from './sim-engine';

const ROOT = join(__dirname, '../../..');
const DOC = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
const EXAMPLES = join(ROOT, 'deploy/examples');

interface KeyPaths {
  /** Every object key, as a dotted path: `[]` steps into an array element, `*` into a record value. */
  paths: Set<string>;
  /** Paths of records: `<x>` placeholders may follow them in the docs (`engine_metrics.<engine>.<field>`). */
  open: Set<string>;
}

type Def = {
  type: string;
  shape?: Record<string, z.core.$ZodType>;
  valueType?: z.core.$ZodType;
  element?: z.core.$ZodType;
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  out?: z.core.$ZodType;
  options?: readonly z.core.$ZodType[];
  getter?: () => z.core.$ZodType;
};

/** Walks a zod 4 schema through its wrappers (default, prefault, optional, pipe, union, …) to every object key. */
function keyPaths(schema: z.core.$ZodType): KeyPaths {
  const out: KeyPaths = { paths: new Set(), open: new Set() };
  const seen = new Set<z.core.$ZodType>();
  const walk = (t: z.core.$ZodType, prefix: string): void => {
    if (seen.has(t)) return;
    seen.add(t);
    const def = t._zod.def as unknown as Def;
    switch (def.type) {
      case 'object':
        for (const [k, v] of Object.entries(def.shape!)) {
          const p = prefix ? `${prefix}.${k}` : k;
          out.paths.add(p);
          walk(v, p);
        }
        break;
      case 'record':
        out.open.add(prefix);
        walk(def.valueType!, `${prefix}.*`);
        break;
      case 'array':
        walk(def.element!, `${prefix}[]`);
        break;
      case 'default':
      case 'prefault':
      case 'optional':
      case 'nullable':
      case 'nonoptional':
      case 'readonly':
      case 'catch':
        walk(def.innerType!, prefix);
        break;
      case 'pipe':
        walk(def.in!, prefix);
        walk(def.out!, prefix);
        break;
      case 'union':
        for (const o of def.options!) walk(o, prefix);
        break;
      case 'lazy':
        walk(def.getter!(), prefix);
        break;
      default:
        break;
    }
    seen.delete(t);
  };
  walk(schema, '');
  return out;
}

/** The text of the `## <name>` section of configuration.md. */
function section(name: string): string {
  const start = DOC.search(new RegExp(`^## ${name}\\s*$`, 'm'));
  if (start < 0) throw new Error(`docs/configuration.md has no "## ${name}" section`);
  const rest = DOC.slice(start + 3);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whether `path` is written in backticks in `text`, record keys as `<placeholder>`.
 * A container key counts as documented by its children (`breaker` by `breaker.failure_threshold`).
 */
function documented(path: string, text: string): boolean {
  const re = escape(path).replace(/\\\*/g, '<[^<>`]+>');
  return new RegExp(`\`${re}(?=[\`.[])`).test(text);
}

/** First-column keys of the tables headed `| key | …` in a section, placeholders as `*`. */
function tableKeys(text: string): string[] {
  const keys: string[] = [];
  let inKeyTable = false;
  for (const line of text.split('\n')) {
    if (!line.startsWith('|')) {
      inKeyTable = false;
      continue;
    }
    const first = /^\|\s*([^|]*?)\s*\|/.exec(line)?.[1] ?? '';
    if (first === 'key') inKeyTable = true;
    const m = /^`([^`]+)`$/.exec(first);
    if (inKeyTable && m) keys.push(m[1].replace(/<[^<>]+>/g, '*'));
  }
  return keys;
}

function undocumented(schema: z.core.$ZodType, text: string): string[] {
  return [...keyPaths(schema).paths].filter((p) => !documented(p, text));
}

/** Table keys that name no schema key (a stale or misspelt row). */
function unknownTableKeys(schema: z.core.$ZodType, text: string): string[] {
  const { paths, open } = keyPaths(schema);
  return tableKeys(text).filter((k) => !paths.has(k) && ![...open].some((o) => new RegExp(`^${escape(o)}(\\.\\*)+$`).test(k)));
}

const FILES: Array<[string, z.core.$ZodType]> = [
  ['router', routerConfigSchema],
  ['admission', admissionServiceConfigSchema],
  ['accounting', accountingConfigSchema],
];

describe('docs/configuration.md', () => {
  it('the schema walker reaches nested objects through defaults, prefaults, optionals, arrays and records', () => {
    const { paths, open } = keyPaths(routerConfigSchema);
    for (const p of [
      'listen',
      'timeouts.first_token',
      'breaker.max_backoff',
      'prefix.session_affinity.load_factor',
      'tenancy.redis_url',
      'tenancy.prices.*.prompt_per_mtok',
      'tenancy.default_price.completion_per_mtok',
      'admission.tls.server_name',
      'admission.bands[].saturation_ceiling',
      'admission.models.*.kv_ceiling',
      'profiles.*.picker.type',
      'endpoints[].draining',
      'endpoint_source.redis_url',
    ]) {
      expect(paths).toContain(p);
    }
    expect(open).toContain('engine_metrics');
    expect(keyPaths(accountingConfigSchema).paths).toContain('ingest.claim_idle');
    expect(keyPaths(admissionServiceConfigSchema).paths).toContain('leader.lock_ttl');
  });

  it.each(FILES)('documents every key of the %s config in its own section', (name, schema) => {
    expect(undocumented(schema, section(name))).toEqual([]);
  });

  it.each(FILES)('names only real keys in the %s key tables', (name, schema) => {
    const keys = tableKeys(section(name));
    expect(keys.length).toBeGreaterThan(10);
    expect(unknownTableKeys(schema, section(name))).toEqual([]);
  });

  it('notices an undocumented key, top-level or nested', () => {
    const withFakes = z
      .object({
        ...routerConfigSchema.shape,
        undocumented_knob: z.number().default(1),
        tenancy: routerTenancySchema.extend({ secret_setting: z.boolean().default(false) }).prefault({}),
      })
      .strict();
    expect(undocumented(withFakes, section('router')).sort()).toEqual(['tenancy.secret_setting', 'undocumented_knob']);
    // A longer key that merely starts with the new one does not document it.
    expect(documented('tenancy.redis', section('router'))).toBe(false);
    expect(unknownTableKeys(accountingConfigSchema, '| key | type |\n|---|---|\n| `ingest.no_such_key` | x |\n')).toEqual(['ingest.no_such_key']);
  });

  it('lists every sim-engine flag', () => {
    const text = section('sim-engine');
    const flagOf = (k: string) => (k === 'models' ? 'model' : k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`));
    // blockSize is fixed at 16 and has no flag.
    const flags = Object.keys(simEngineConfigSchema.shape)
      .filter((k) => k !== 'blockSize')
      .map(flagOf);
    expect(flags.filter((f) => !text.includes(`\`--${f}\``))).toEqual([]);
    const listed = [...text.matchAll(/^\|\s*`--([a-z-]+)`/gm)].map((m) => m[1]);
    expect(listed.filter((f) => !flags.includes(f) && f !== 'listen')).toEqual([]);
  });

  it.each(['router.yaml', 'admission.yaml', 'accounting.yaml'])('links deploy/examples/%s', (file) => {
    expect(DOC).toContain(`](../deploy/examples/${file})`);
  });
});

describe('deploy/examples', () => {
  // router.yaml is parsed (and its profiles built) by apps/router/src/config.spec.ts.
  // catalog.yaml by libs/config/src/catalog.spec.ts; agent.yaml by apps/node-agent/src/main.spec.ts.
  const COVERED_ELSEWHERE = ['router.yaml', 'catalog.yaml', 'agent.yaml'];
  const SCHEMAS: Record<string, z.ZodType> = {
    'admission.yaml': admissionServiceConfigSchema,
    'accounting.yaml': accountingConfigSchema,
    'inventory.yaml': inventoryConfigSchema,
    'placement-scheduler.yaml': placementSchedulerConfigSchema,
  };

  it('every example file has a schema test', () => {
    const files = readdirSync(EXAMPLES).filter((f) => /\.ya?ml$/.test(f));
    expect(files.filter((f) => !COVERED_ELSEWHERE.includes(f) && !SCHEMAS[f])).toEqual([]);
  });

  it('admission.yaml parses, with the four default bands', () => {
    const cfg = loadConfigFile(admissionServiceConfigSchema, join(EXAMPLES, 'admission.yaml'));
    expect(cfg.bands?.map((b) => b.name)).toEqual(['platinum', 'gold', 'silver', 'bronze']);
    expect(cfg.leader.lock_ttl).toBe(5000);
    expect(Object.isFrozen(cfg)).toBe(true);
  });

  it.each(['inventory.yaml', 'placement-scheduler.yaml', 'admission.yaml'])('%s parses, with mTLS on every port it serves', (file) => {
    const cfg = loadConfigFile(SCHEMAS[file], join(EXAMPLES, file)) as { tls?: { client_ca?: string }; agent_tls?: { client_ca?: string }; insecure: boolean };
    expect(cfg.tls?.client_ca).toBe('/etc/llmgw/tls/ca.crt');
    if (file === 'inventory.yaml') expect(cfg.agent_tls?.client_ca).toBe('/etc/llmgw/tls/ca.crt');
    expect(cfg.insecure).toBe(false);
  });

  it('accounting.yaml parses to the defaults but for its address and mTLS, and spells out every key', () => {
    const path = join(EXAMPLES, 'accounting.yaml');
    const cfg = loadConfigFile(accountingConfigSchema, path);
    expect(cfg.tls).toEqual({ cert: '/etc/llmgw/tls/accounting.crt', key: '/etc/llmgw/tls/accounting.key', client_ca: '/etc/llmgw/tls/ca.crt' });
    expect({ ...cfg, tls: undefined, listen: '127.0.0.1:7072' }).toEqual({ ...parseConfig(accountingConfigSchema, {}), tls: undefined });
    const text = readFileSync(path, 'utf8');
    const missing = [...keyPaths(accountingConfigSchema).paths].map((p) => p.split('.').pop()!).filter((k) => !new RegExp(`^\\s*#?\\s*${k}:`, 'm').test(text));
    expect(missing).toEqual([]);
  });
});
