import type * as grpc from '@grpc/grpc-js';
import type { accountingV1 } from '@llmgw/contracts';
import { accountingProto } from './proto';

/** Accounting's two services, typed by the generated handler interfaces. */
export interface AccountingHandlers {
  keyResolver: accountingV1.KeyResolverHandlers;
  tenancyAdmin: accountingV1.TenancyAdminHandlers;
  /** Where the placement-scheduler appends fleet actions; absent = not served (UNIMPLEMENTED). */
  auditLog?: accountingV1.AuditLogHandlers;
}

/** The gRPC service names, for health checks. */
export const KEY_RESOLVER_SERVICE = 'llmgw.accounting.v1.KeyResolver';
export const TENANCY_ADMIN_SERVICE = 'llmgw.accounting.v1.TenancyAdmin';
export const AUDIT_LOG_SERVICE = 'llmgw.accounting.v1.AuditLog';
export const ACCOUNTS_SERVICE = 'llmgw.accounting.v1.Accounts';

/** Registers KeyResolver, TenancyAdmin (and AuditLog when given) on `server`. */
export function addAccountingServices(server: grpc.Server, h: AccountingHandlers): void {
  const pkg = accountingProto();
  server.addService(pkg.KeyResolver.service, h.keyResolver);
  server.addService(pkg.TenancyAdmin.service, h.tenancyAdmin);
  if (h.auditLog) server.addService(pkg.AuditLog.service, h.auditLog);
}
