import { parseCatalog } from './catalog';
import { ConfigError } from './load';

const model = (extra: object = {}) => ({ name: 'm', source: 'sim/m', profiles: [{ name: 'p', gpu_class: 'h100-80g', engine: 'sim' }], ...extra });
const issues = (raw: unknown): string[] => {
  try {
    parseCatalog(raw, 'catalog.yaml');
  } catch (e) {
    return (e as ConfigError).issues;
  }
  return [];
};

describe('catalog: classes, projects, quotas, keep_within', () => {
  it('maps them onto the models and the catalog', () => {
    const c = parseCatalog({
      projects: [{ name: 'search', team: 'retrieval', org: 'acme' }],
      quotas: [
        { org: 'acme', guarantee_gpus: 8, limit_gpus: 16 },
        { project: 'search', capacity_class: 'critical', guarantee_gpus: 2 },
      ],
      models: [model({ capacity_class: 'critical', project: 'search', keep_within: 'rack' }), model({ name: 'n' })],
    });
    expect(c.models[0]).toMatchObject({ capacityClass: 'critical', project: 'search', keepWithin: 'rack' });
    expect(c.models[1].capacityClass).toBe('standard');
    expect(c.projects).toEqual([{ name: 'search', team: 'retrieval', org: 'acme' }]);
    expect(c.quotas).toEqual([
      { scope: 'org', name: 'acme', guaranteeGpus: 8, limitGpus: 16 },
      { scope: 'project', name: 'search', capacityClass: 'critical', guaranteeGpus: 2 },
    ]);
  });

  it('names every problem: unknown project, a quota with no or two scopes, a limit below its guarantee, a repeated quota, an unknown class or level', () => {
    const got = issues({
      projects: [{ name: 'search' }],
      quotas: [{ guarantee_gpus: 1 }, { org: 'a', team: 'b', guarantee_gpus: 1 }, { org: 'a', guarantee_gpus: 4, limit_gpus: 2 }],
      models: [model({ project: 'nope' }), model({ name: 'x', capacity_class: 'gold' }), model({ name: 'y', keep_within: 'row' })],
    });
    expect(got.join('\n')).toMatch(/quotas\[0\]: set exactly one of org, team, project/);
    expect(got.join('\n')).toMatch(/quotas\[1\]: set exactly one of org, team, project/);
    expect(got.join('\n')).toMatch(/quotas\[2\]: limit_gpus must be at least guarantee_gpus/);
    expect(got.join('\n')).toMatch(/models\[1\] \(x\)\.capacity_class/);
    expect(got.join('\n')).toMatch(/models\[2\] \(y\)\.keep_within/);
    expect(issues({ projects: [{ name: 'search' }], models: [model({ project: 'nope' })] })).toEqual(['models[0] (m).project: "nope" is not under projects']);
    expect(
      issues({
        quotas: [
          { org: 'a', guarantee_gpus: 1 },
          { org: 'a', guarantee_gpus: 2 },
        ],
        models: [],
      }),
    ).toEqual(['quotas[1]: a second quota for org a']);
  });
});
