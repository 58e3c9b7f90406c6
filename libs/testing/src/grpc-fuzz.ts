/**
 * A fuzzer for every gRPC method llmgw serves (docs/security.md: bad input
 * gets a status naming the field, never a crash, a hang or a leak). The
 * methods and their request types come from the .proto files themselves, so
 * a method added later is fuzzed without touching this file. Requests are
 * raw bytes built here (a small protobuf wire encoder), so a case can say
 * what generated types cannot: a wrong wire type, a truncated message, an
 * int64 past 2^53, an enum number nobody declared.
 */
export { descriptorSet, loadFuzzMethods } from './grpc-fuzz-descriptors';
export type { DescriptorSet, FieldDesc, FuzzMethod, MessageDesc, ScalarKind } from './grpc-fuzz-descriptors';
export { encodeMessage, scalar, varint } from './grpc-fuzz-wire';
export type { MessageValue, WireValue } from './grpc-fuzz-wire';
export { CONTROL_STRINGS, OVERSIZE_CHAR, echoes, fuzzCases, isDeserializeError, leakOf, prng, sampleCases } from './grpc-fuzz-cases';
export type { CaseOptions, FuzzCase, FuzzCategory } from './grpc-fuzz-cases';
export { callRaw } from './grpc-fuzz-call';
export type { RawAnswer, RawCallOptions } from './grpc-fuzz-call';
export { eventLoopMaxMs, formatFindings, fuzzTarget, fuzzTotals, startLagProbe, takeEventLoopMaxMs } from './grpc-fuzz-run';
export type { CaseResult, FuzzOptions, FuzzTarget, FuzzTotals, LagProbe, MethodFindings, ScenarioFinding, TargetFindings } from './grpc-fuzz-run';
