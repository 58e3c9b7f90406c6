export * from './tenancy';
export * from './loader-options';
export * from './proto';
export * as agentV1 from './generated/llmgw/agent/v1';
export * as inventoryV1 from './generated/llmgw/inventory/v1';
export * as controlV1 from './generated/llmgw/control/v1';
export * as accountingV1 from './generated/llmgw/accounting/v1';
export type { ProtoGrpcType as AccountingProto } from './generated/accounting';
export * from './openai';
