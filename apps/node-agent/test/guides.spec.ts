import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  accountingConfigSchema,
  admissionServiceConfigSchema,
  inventoryConfigSchema,
  parseCatalog,
  parseConfig,
  placementSchedulerConfigSchema,
  routerConfigSchema,
} from '@llmgw/config';
import { parseAgentConfig } from '../src/config';

/**
 * The install guides' config files are real: every YAML block in
 * docs/install.md and docs/node-onboarding.md names its file in its first
 * line (`# /etc/llmgw/router.yaml`) and parses with that service's schema;
 * and every TLS file a config names is one the guide installs.
 */
const ROOT = join(__dirname, '../../..');
const GUIDES = ['docs/install.md', 'docs/node-onboarding.md'];

const PARSERS: Record<string, (raw: unknown, source: string) => unknown> = {
  'accounting.yaml': (raw, source) => parseConfig(accountingConfigSchema, raw, source),
  'admission.yaml': (raw, source) => parseConfig(admissionServiceConfigSchema, raw, source),
  'inventory.yaml': (raw, source) => parseConfig(inventoryConfigSchema, raw, source),
  'placement-scheduler.yaml': (raw, source) => parseConfig(placementSchedulerConfigSchema, raw, source),
  'router.yaml': (raw, source) => parseConfig(routerConfigSchema, raw, source),
  'catalog.yaml': (raw, source) => parseCatalog(raw, source),
  'agent.yaml': (raw, source) => parseAgentConfig(raw, source),
};

interface Block {
  guide: string;
  file: string | undefined;
  text: string;
}

function yamlBlocks(guide: string): Block[] {
  const md = readFileSync(join(ROOT, guide), 'utf8');
  return [...md.matchAll(/^```ya?ml\n([\s\S]*?)^```$/gm)].map((m) => ({
    guide,
    file: /^#\s*(?:\/etc\/llmgw\/)?([a-z-]+\.yaml)\b/.exec(m[1])?.[1],
    text: m[1],
  }));
}

describe('the install guides', () => {
  const blocks = GUIDES.flatMap(yamlBlocks);

  it('name the file of every YAML block, one the test can parse', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(9);
    expect(blocks.filter((b) => !b.file || !PARSERS[b.file]).map((b) => `${b.guide}: ${b.text.split('\n')[0]}`)).toEqual([]);
    for (const f of Object.keys(PARSERS)) expect(blocks.map((b) => b.file)).toContain(f);
  });

  it.each(blocks.map((b) => [`${b.guide} ${b.file}`, b] as const))('%s parses with its schema', (_name, b) => {
    expect(() => PARSERS[b.file!](parse(b.text), `${b.guide} ${b.file}`)).not.toThrow();
  });

  it('a block with a misspelt key fails (the parsers are strict)', () => {
    expect(() => PARSERS['router.yaml']({ listen: ':8080', endpoint_sorce: {} }, 'x')).toThrow(/endpoint_sorce/);
    expect(() => PARSERS['agent.yaml']({ node_id: 'n', sever: 'a:1' }, 'x')).toThrow(/sever/);
  });

  it.each(GUIDES)('%s installs every TLS file its configs name', (guide) => {
    const md = readFileSync(join(ROOT, guide), 'utf8');
    const shell = [...md.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]).join('\n');
    const named = new Set(yamlBlocks(guide).flatMap((b) => [...b.text.matchAll(/\/etc\/llmgw\/tls\/([\w.-]+)/g)].map((m) => m[1])));
    expect(named.size).toBeGreaterThan(2);
    const installed = (file: string) => new RegExp(`install [^\\n]*-m 06[04]{2} [^\\n]*(?<![\\w-])${file.replace(/\./g, '\\.')}\\b`).test(shell);
    expect([...named].filter((f) => !installed(f))).toEqual([]);
  });
});
