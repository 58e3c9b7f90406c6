import { context, propagation, trace } from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * Where spans go. The service host installs one per process: the OTLP/HTTP
 * exporter when OTEL_EXPORTER_OTLP_ENDPOINT is set, nothing at all otherwise
 * (the @opentelemetry/api calls in the libs then stay no-ops). Tests install
 * their own span processor (an in-memory exporter) with `installTracing`.
 */
export interface TracingSetup {
  /** resource `service.name`; in `llmgw up` the first service started names the process. */
  serviceName: string;
  serviceVersion: string;
  serviceInstanceId?: string;
  spanProcessors: SpanProcessor[];
}

interface Installed {
  refs: number;
  shutdown(): Promise<void>;
}
let installed: Installed | undefined;

/**
 * Registers the tracer provider, the AsyncLocalStorage context manager and the
 * W3C trace-context propagator globally, once per process; later calls only
 * take a reference. Returns the release function: the last release flushes and
 * unregisters.
 */
export function installTracing(setup: TracingSetup): () => Promise<void> {
  if (!installed) {
    // Loaded only when tracing is on: a process without it never pays for the SDK.
    const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
    const { resources } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
    const provider = new NodeTracerProvider({
      resource: resources.resourceFromAttributes({
        'service.name': setup.serviceName,
        'service.version': setup.serviceVersion,
        ...(setup.serviceInstanceId ? { 'service.instance.id': setup.serviceInstanceId } : {}),
      }),
      spanProcessors: setup.spanProcessors,
    });
    provider.register();
    installed = {
      refs: 0,
      async shutdown() {
        await provider.shutdown().catch(() => undefined);
        trace.disable();
        context.disable();
        propagation.disable();
      },
    };
  }
  const inst = installed;
  inst.refs++;
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    if (--inst.refs === 0 && installed === inst) {
      installed = undefined;
      await inst.shutdown();
    }
  };
}

/** True while a tracer provider is installed in this process. */
export function tracingInstalled(): boolean {
  return installed !== undefined;
}

/**
 * The OTLP exporter from the standard environment variables, read once at boot:
 * OTEL_EXPORTER_OTLP_ENDPOINT (base URL; `/v1/traces` is appended) or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (full URL). Undefined when neither is set.
 */
export function otlpFromEnv(env: NodeJS.ProcessEnv): SpanProcessor | undefined {
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const full = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (!base && !full) return undefined;
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const url = full || `${base!.replace(/\/+$/, '')}/v1/traces`;
  return new BatchSpanProcessor(new OTLPTraceExporter({ url }));
}
