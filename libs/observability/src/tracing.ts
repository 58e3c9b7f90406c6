import {
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { PACKAGE_VERSION } from './version';

export { SpanKind, type Span, type Context };

/**
 * The tracer every llmgw lib uses. It is the API's proxy: until a service host
 * registers the SDK (libs/service, when OTEL_EXPORTER_OTLP_ENDPOINT is set)
 * every span is a non-recording no-op.
 */
export function tracer(): Tracer {
  return trace.getTracer('llmgw', PACKAGE_VERSION);
}

/** What the API's global provider delegates to while no SDK is registered. */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();
/** The span every `inSpan` gets without an SDK: records nothing, carries no context. */
const NO_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** True once an SDK registered a tracer provider (libs/service, when OTLP is configured): spans record. */
export function tracingRegistered(): boolean {
  const p = trace.getTracerProvider();
  return !(p instanceof ProxyTracerProvider) || p.getDelegate() !== NOOP_PROVIDER;
}

/**
 * Runs `fn` inside a new active span named `name`: errors are recorded on the
 * span and rethrown, the span always ends. Stage code wraps itself in one call,
 * so moving a stage moves its span with it.
 */
export function inSpan<T>(name: string, attrs: Attributes, fn: (span: Span) => Promise<T> | T, opts: { kind?: SpanKind; parent?: Context } = {}): Promise<T> {
  if (!tracingRegistered()) {
    // No SDK: the API would make a non-recording span and a new context per call, for nothing.
    try {
      return Promise.resolve(fn(NO_SPAN));
    } catch (e) {
      return Promise.reject(e);
    }
  }
  return tracer().startActiveSpan(name, { attributes: attrs, kind: opts.kind ?? SpanKind.INTERNAL }, opts.parent ?? context.active(), async (span) => {
    try {
      return await fn(span);
    } catch (e) {
      span.recordException(e as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error)?.message });
      throw e;
    } finally {
      span.end();
    }
  });
}

/** Marks a span failed without an exception (an HTTP 5xx, a rejected admission). */
export function failSpan(span: Span, message: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/** Writes the active context's W3C `traceparent` (and `tracestate`) into `carrier`; nothing without an SDK. */
export function injectTrace(carrier: Record<string, string>, ctx: Context = context.active()): Record<string, string> {
  propagation.inject(ctx, carrier);
  return carrier;
}

/** The context a remote caller's `traceparent` describes, over `base` (the active one by default). */
export function extractTrace(carrier: Record<string, string | string[] | undefined>, base: Context = context.active()): Context {
  return propagation.extract(base, carrier, {
    get: (c, k) => c[k],
    keys: (c) => Object.keys(c),
  });
}

/** The trace id of the active span, when one is recording. */
export function activeTraceId(): string | undefined {
  const sc = trace.getActiveSpan()?.spanContext();
  return sc && trace.isSpanContextValid(sc) ? sc.traceId : undefined;
}
