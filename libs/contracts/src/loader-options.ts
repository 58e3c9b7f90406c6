import OPTIONS from './proto-options.json';

/**
 * How protos are turned into JS objects, in one place: proto-options.json is
 * read both here (run-time loading) and by tools/scripts/proto-gen.cjs (type
 * generation), so the generated types describe exactly the objects grpc-js
 * hands us. A spec checks the two stay equal.
 */
export const PROTO_OPTIONS = OPTIONS as Readonly<{
  keepCase: boolean;
  longs: 'Number' | 'String';
  enums: 'String';
  defaults: boolean;
  oneofs: boolean;
  grpcLib: string;
}>;

/** The options every proto is loaded with at run time (@grpc/proto-loader). */
export const PROTO_LOADER_OPTIONS = {
  keepCase: PROTO_OPTIONS.keepCase,
  longs: PROTO_OPTIONS.longs === 'Number' ? Number : String,
  enums: String,
  defaults: PROTO_OPTIONS.defaults,
  oneofs: PROTO_OPTIONS.oneofs,
} as const;

/** The same options as flags for proto-loader-gen-types. */
export const PROTO_GEN_FLAGS: readonly string[] = [
  ...(PROTO_OPTIONS.keepCase ? ['--keepCase'] : []),
  `--longs=${PROTO_OPTIONS.longs}`,
  `--enums=${PROTO_OPTIONS.enums}`,
  ...(PROTO_OPTIONS.defaults ? ['--defaults'] : []),
  ...(PROTO_OPTIONS.oneofs ? ['--oneofs'] : []),
  `--grpcLib=${PROTO_OPTIONS.grpcLib}`,
];
