import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { fail, parseJson, readBody } from './http-io';
import type { LoraSlots } from './lora';

const LoadRequest = z.object({ lora_name: z.string().min(1).max(256), lora_path: z.string().min(1).max(4096) }).passthrough();
const UnloadRequest = z.object({ lora_name: z.string().min(1).max(256) }).passthrough();

function text(res: ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
}

/** vLLM's runtime adapter API (`VLLM_ALLOW_RUNTIME_LORA_UPDATING`): load and unload by name; refused when --max-loras is 0. */
export function loraRoutes(lora: LoraSlots, bodyLimit: number) {
  const enabled = () => {
    if (lora.maxLoras <= 0) throw fail('LLMGW_ERR_REQUEST_INVALID', 'LoRA is not enabled on this engine (start it with --max-loras N)');
  };
  return {
    '/v1/load_lora_adapter': {
      methods: ['POST'],
      handle: async (req: IncomingMessage, res: ServerResponse) => {
        const b = parseJson(await readBody(req, bodyLimit), LoadRequest);
        enabled();
        if (!lora.register(b.lora_name, b.lora_path))
          throw fail('LLMGW_ERR_REQUEST_INVALID', `The lora adapter '${b.lora_name}' has already been loaded.`, 'lora_name');
        text(res, `Success: LoRA adapter '${b.lora_name}' added successfully.`);
      },
    },
    '/v1/unload_lora_adapter': {
      methods: ['POST'],
      handle: async (req: IncomingMessage, res: ServerResponse) => {
        const b = parseJson(await readBody(req, bodyLimit), UnloadRequest);
        enabled();
        if (!lora.unregister(b.lora_name)) throw fail('LLMGW_ERR_REQUEST_INVALID', `The lora adapter '${b.lora_name}' cannot be found.`, 'lora_name');
        text(res, `Success: LoRA adapter '${b.lora_name}' removed successfully.`);
      },
    },
    '/sim/lora': {
      methods: ['GET'],
      handle: (_q: IncomingMessage, r: ServerResponse) =>
        void r
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ loads: lora.loads, ...lora.info(), served: Object.fromEntries(lora.served) })),
    },
  };
}
