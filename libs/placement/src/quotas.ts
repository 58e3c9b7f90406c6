import type { CapacityClass } from './types';

/** The level a quota applies at (docs/placement.md "Quotas"). */
export type QuotaScope = 'org' | 'team' | 'project';

/** One quota: GPUs of one organisation, team or project, optionally of one capacity class only. */
export interface QuotaRule {
  readonly scope: QuotaScope;
  readonly name: string;
  /** Only replicas of this class count; undefined = every class. */
  readonly capacityClass?: CapacityClass;
  /** GPUs always available to it: placements inside it preempt borrowers. */
  readonly guaranteeGpus: number;
  /** GPUs never exceeded; undefined = no limit. */
  readonly limitGpus?: number;
}

/** A catalog project and the team and organisation it belongs to. */
export interface ProjectRef {
  readonly name: string;
  readonly team?: string;
  readonly org?: string;
}

/** Who a replica's GPUs count for. */
export interface QuotaOwner {
  readonly project?: string;
  readonly capacityClass: CapacityClass;
}

const label = (r: QuotaRule) => `${r.scope} ${r.name}${r.capacityClass ? ` (${r.capacityClass})` : ''}`;

/**
 * GPU usage per quota rule and the checks placement and preemption make
 * against it. Copyable, so a preemption is tried on a copy first.
 */
export class QuotaBook {
  private readonly used: number[];

  constructor(
    readonly rules: readonly QuotaRule[],
    private readonly projects: ReadonlyMap<string, ProjectRef>,
    used?: readonly number[],
  ) {
    this.used = used ? [...used] : rules.map(() => 0);
  }

  clone(): QuotaBook {
    return new QuotaBook(this.rules, this.projects, this.used);
  }

  /** Indices of the rules an owner's GPUs count against. */
  private rulesOf(o: QuotaOwner): number[] {
    if (!o.project) return [];
    const p = this.projects.get(o.project) ?? { name: o.project };
    const out: number[] = [];
    this.rules.forEach((r, i) => {
      if (r.capacityClass && r.capacityClass !== o.capacityClass) return;
      const name = r.scope === 'project' ? p.name : r.scope === 'team' ? p.team : p.org;
      if (name !== undefined && name === r.name) out.push(i);
    });
    return out;
  }

  add(o: QuotaOwner, gpus: number): void {
    for (const i of this.rulesOf(o)) this.used[i] += gpus;
  }

  remove(o: QuotaOwner, gpus: number): void {
    for (const i of this.rulesOf(o)) this.used[i] -= gpus;
  }

  /** Why `gpus` more for `o` would pass a limit; undefined when none would be passed. */
  limitExceeded(o: QuotaOwner, gpus: number): string | undefined {
    for (const i of this.rulesOf(o)) {
      const r = this.rules[i];
      if (r.limitGpus !== undefined && this.used[i] + gpus > r.limitGpus)
        return `${label(r)} uses ${this.used[i]} of its ${r.limitGpus}-GPU limit; this replica needs ${gpus}`;
    }
    return undefined;
  }

  /** The rule under whose guarantee `gpus` more for `o` still fit, if any (a claim that may preempt borrowers). */
  guaranteeClaim(o: QuotaOwner, gpus: number): string | undefined {
    for (const i of this.rulesOf(o)) {
      const r = this.rules[i];
      if (r.guaranteeGpus > 0 && this.used[i] + gpus <= r.guaranteeGpus) return `${label(r)} uses ${this.used[i]} of its ${r.guaranteeGpus}-GPU guarantee`;
    }
    return undefined;
  }

  /** The guarantee `gpus` fewer for `o` would cut into (then the replica is not borrowed and is kept); undefined when none. */
  guaranteeCut(o: QuotaOwner, gpus: number): string | undefined {
    for (const i of this.rulesOf(o)) {
      const r = this.rules[i];
      if (r.guaranteeGpus > 0 && this.used[i] - gpus < r.guaranteeGpus) return `${label(r)} would fall below its ${r.guaranteeGpus}-GPU guarantee`;
    }
    return undefined;
  }

  /** Every rule with its usage (ctl quota show, ctl models). */
  usage(): Array<QuotaRule & { usedGpus: number }> {
    return this.rules.map((r, i) => ({ ...r, usedGpus: this.used[i] }));
  }
}
