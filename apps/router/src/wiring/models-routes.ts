import type { FastifyInstance } from 'fastify';
import { LlmgwError, toHttpError } from '@llmgw/errors';
import { isModelAllowed } from '@llmgw/tenancy';
import type { ModelCatalog } from '../catalog';
import type { OnDemand } from '../on-demand';
import type { TenancyHooks } from '../tenancy/types';

export interface ModelsRouteDeps {
  catalog: Pick<ModelCatalog, 'list' | 'resolve'>;
  tenancy: Pick<TenancyHooks, 'authenticate'>;
  onDemand?: Pick<OnDemand, 'loaded' | 'notLoaded'>;
}

/**
 * `GET /v1/models` and `GET /v1/models/:id`. With auth on, listing models
 * needs a key like every other API call, and a key sees only the models its
 * allowlist lets it use (an alias counts as the model it names).
 */
export function registerModelRoutes(client: FastifyInstance, { catalog, tenancy, onDemand }: ModelsRouteDeps): void {
  async function visibleModels(authorization: string | undefined) {
    const principal = await tenancy.authenticate(authorization);
    const all = catalog.list();
    // An alias counts as the model it names, an adapter as its base model (docs/models.md, "Adapters").
    return principal ? all.filter((m) => isModelAllowed(principal.limits, m.aliasOf ?? m.parent ?? m.id)) : all;
  }
  const entry = (m: { id: string; aliasOf?: string; parent?: string }, created: number) => ({
    id: m.id,
    object: 'model',
    created,
    owned_by: 'llmgw',
    ...(m.aliasOf ? { root: m.aliasOf } : {}),
    // As vLLM lists an adapter: `parent` is its base model.
    ...(m.parent ? { parent: m.parent } : {}),
  });
  client.get('/v1/models', async (req, reply) => {
    const created = Math.floor(Date.now() / 1000);
    const models = await visibleModels(req.headers.authorization);
    return reply.send({ object: 'list', data: models.map((m) => entry(m, created)) });
  });
  client.get<{ Params: { id: string } }>('/v1/models/:id', async (req, reply) => {
    const m = (await visibleModels(req.headers.authorization)).find((x) => x.id === req.params.id);
    if (!m) {
      if (onDemand && !onDemand.loaded() && !catalog.resolve(req.params.id)) {
        const h = toHttpError(onDemand.notLoaded(req.params.id));
        return reply.code(h.status).headers(h.headers).send(h.body);
      }
      const h = toHttpError(new LlmgwError('LLMGW_ERR_MODEL_NOT_FOUND', `The model \`${req.params.id}\` does not exist.`, { param: 'model' }));
      return reply.code(h.status).send(h.body);
    }
    return reply.send(entry(m, Math.floor(Date.now() / 1000)));
  });
}
