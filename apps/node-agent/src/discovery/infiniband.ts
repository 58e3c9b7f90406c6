import type { agentV1 } from '@llmgw/contracts';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { basename, join } from 'node:path';

/** OpenSM's default subnet prefix: the same on every fabric, so it never identifies one (docs/node-agent.md#discovery). */
export const DEFAULT_SUBNET_PREFIX = 'fe80:0000:0000:0000';

/** `4: ACTIVE` → PORT_STATE_ACTIVE. */
export function parsePortState(raw: string): agentV1.PortState__Output {
  const m = /^\s*(\d+)/.exec(raw);
  switch (m ? Number(m[1]) : -1) {
    case 1:
      return 'PORT_STATE_DOWN';
    case 2:
      return 'PORT_STATE_INIT';
    case 3:
      return 'PORT_STATE_ARMED';
    case 4:
      return 'PORT_STATE_ACTIVE';
    case 5:
      return 'PORT_STATE_ACTIVE_DEFER';
    default:
      return 'PORT_STATE_UNSPECIFIED';
  }
}

/** `100 Gb/sec (4X EDR)` → 100; `2.5 Gb/sec (1X SDR)` → 2 (whole Gbit/s, floored); unknown → 0. */
export function parseRate(raw: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*Gb\/sec/i.exec(raw);
  return m ? Math.floor(Number(m[1])) : 0;
}

/** `InfiniBand` / `Ethernet` (RoCE). */
export function parseLinkLayer(raw: string): agentV1.LinkLayer__Output {
  const v = raw.trim().toLowerCase();
  if (v === 'infiniband') return 'LINK_LAYER_INFINIBAND';
  if (v === 'ethernet') return 'LINK_LAYER_ETHERNET';
  return 'LINK_LAYER_UNSPECIFIED';
}

/** The subnet prefix of a GID (its first four groups, zero-padded, lower case); '' when malformed. */
export function gidPrefix(gid: string): string {
  const groups = gid.trim().toLowerCase().split(':');
  if (groups.length !== 8 || !groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return '';
  return groups
    .slice(0, 4)
    .map((g) => g.padStart(4, '0'))
    .join(':');
}

/** Reads a sysfs attribute; undefined when absent or unreadable. */
function attr(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function list(path: string): string[] | undefined {
  try {
    return readdirSync(path).sort();
  } catch {
    return undefined;
  }
}

/**
 * Reads every HCA under `<sysfsRoot>/class/infiniband`. Missing attributes
 * are warnings, never errors: a half-populated sysfs gives what it has.
 */
export function readInfiniband(sysfsRoot: string): { hcas: agentV1.Hca__Output[]; warnings: string[] } {
  const dir = join(sysfsRoot, 'class', 'infiniband');
  const warnings: string[] = [];
  const names = list(dir);
  if (names === undefined) return { hcas: [], warnings: [] }; // no IB stack: not a problem
  const hcas: agentV1.Hca__Output[] = [];
  for (const name of names) {
    const base = join(dir, name);
    let pci = '';
    try {
      pci = basename(readlinkSync(join(base, 'device')));
    } catch {
      /* fixtures and some virtual HCAs have no device link */
    }
    const numaRaw = attr(join(base, 'device', 'numa_node'));
    const numa = numaRaw !== undefined && /^-?\d+$/.test(numaRaw) ? Number(numaRaw) : -1;
    const portNames = list(join(base, 'ports')) ?? [];
    if (!portNames.length) warnings.push(`infiniband ${name}: no ports under ${join(base, 'ports')}`);
    const ports: agentV1.HcaPort__Output[] = [];
    for (const p of portNames) {
      if (!/^\d+$/.test(p)) continue;
      const pd = join(base, 'ports', p);
      const state = attr(join(pd, 'state'));
      const linkLayer = attr(join(pd, 'link_layer'));
      const missing = [state === undefined && 'state', linkLayer === undefined && 'link_layer'].filter(Boolean);
      if (missing.length) warnings.push(`infiniband ${name} port ${p}: cannot read ${missing.join(', ')}`);
      const gid = attr(join(pd, 'gids', '0'));
      const lid = attr(join(pd, 'lid'));
      const smLid = attr(join(pd, 'sm_lid'));
      ports.push({
        port: Number(p),
        state: state === undefined ? 'PORT_STATE_UNSPECIFIED' : parsePortState(state),
        physState: attr(join(pd, 'phys_state')) ?? '',
        rateGbps: parseRate(attr(join(pd, 'rate')) ?? ''),
        linkLayer: linkLayer === undefined ? 'LINK_LAYER_UNSPECIFIED' : parseLinkLayer(linkLayer),
        gidPrefix: gid ? gidPrefix(gid) : '',
        lid: lid ? parseInt(lid, 16) || 0 : 0,
        smLid: smLid ? parseInt(smLid, 16) || 0 : 0,
      });
    }
    hcas.push({ name, pciBusId: pci, numaNode: numa, ports });
  }
  return { hcas, warnings };
}

/** agent.yaml `fabrics:` entries. */
export interface FabricLabel {
  name: string;
  hcas: readonly string[];
}

/**
 * Assigns every HCA with an ACTIVE port to a fabric (docs/node-agent.md#discovery, in order):
 * the configured label; else its GID subnet prefix looked up in
 * `prefixTable` (OpenSM's default prefix never counts); else `unknown`.
 * HCAs without an ACTIVE port attach to nothing (they cannot carry NCCL
 * traffic). One attachment per fabric; HCAs sorted by name.
 */
export function assignFabrics(
  hcas: readonly agentV1.Hca__Output[],
  labels: readonly FabricLabel[] = [],
  prefixTable: Readonly<Record<string, string>> = {},
): { fabrics: agentV1.FabricAttachment__Output[]; warnings: string[] } {
  const warnings: string[] = [];
  const byName = new Map(hcas.map((h) => [h.name, h]));
  for (const l of labels) for (const h of l.hcas) if (!byName.has(h)) warnings.push(`fabric ${l.name}: HCA ${h} is configured but not present`);
  const groups = new Map<string, { source: agentV1.FabricSource__Output; hcas: string[]; rates: number[] }>();
  for (const h of hcas) {
    const active = h.ports.filter((p) => p.state === 'PORT_STATE_ACTIVE');
    if (!active.length) {
      if (labels.some((l) => l.hcas.includes(h.name))) warnings.push(`HCA ${h.name} is labelled but has no ACTIVE port; left out of its fabric`);
      continue;
    }
    let fabric = 'unknown';
    let source: agentV1.FabricSource__Output = 'FABRIC_SOURCE_UNKNOWN';
    const label = labels.find((l) => l.hcas.includes(h.name));
    if (label) {
      fabric = label.name;
      source = 'FABRIC_SOURCE_LABEL';
    } else {
      const prefix = active.map((p) => p.gidPrefix).find((g) => g && g !== DEFAULT_SUBNET_PREFIX && prefixTable[g]);
      if (prefix) {
        fabric = prefixTable[prefix];
        source = 'FABRIC_SOURCE_GID_PREFIX';
      }
    }
    const g = groups.get(fabric) ?? { source, hcas: [], rates: [] };
    g.hcas.push(h.name);
    g.rates.push(...active.map((p) => p.rateGbps));
    groups.set(fabric, g);
  }
  const fabrics = [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([fabric, g]) => ({ fabric, hcas: g.hcas.sort(), rateGbps: g.rates.length ? Math.min(...g.rates) : 0, source: g.source }));
  if (groups.has('unknown'))
    warnings.push(
      `HCAs ${groups.get('unknown')!.hcas.join(', ')} belong to no known fabric (no label, no mapped GID prefix): the node is excluded from multi-node placement on them`,
    );
  return { fabrics, warnings };
}
