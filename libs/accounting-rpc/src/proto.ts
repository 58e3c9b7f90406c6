import { loadProto, type AccountingProto } from '@llmgw/contracts';

export const ACCOUNTING_PROTO = 'llmgw/accounting/v1/accounting.proto';

/**
 * The llmgw.accounting.v1 package (KeyResolver, TenancyAdmin and their
 * messages), typed by the generated `ProtoGrpcType`. The one place
 * accounting.proto is loaded: @llmgw/contracts' `loadProto` (cached,
 * PROTO_LOADER_OPTIONS, honours `setProtoRoot` for bundles).
 */
export function accountingProto(): AccountingProto['llmgw']['accounting']['v1'] {
  return loadProto(ACCOUNTING_PROTO).llmgw.accounting.v1;
}
