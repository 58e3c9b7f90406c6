/**
 * The options every proto is loaded with at run time. tools/scripts/proto-gen.cjs
 * passes the same options to `proto-loader-gen-types`, so the generated types
 * describe exactly the objects grpc-js hands us.
 */
export const PROTO_LOADER_OPTIONS = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
} as const;

/** The same options as flags for proto-loader-gen-types. */
export const PROTO_GEN_FLAGS = ['--longs=Number', '--enums=String', '--defaults', '--oneofs', '--grpcLib=@grpc/grpc-js'];
