import type * as grpc from '@grpc/grpc-js';
import { loadProto, type inventoryV1 } from '@llmgw/contracts';

export const INVENTORY_PROTO = 'llmgw/inventory/v1/inventory.proto';

type Ctor<C> = new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => C;

/** The generated client constructor of llmgw.inventory.v1.InventoryService (loaded once by @llmgw/contracts). */
export function inventoryClientConstructor(): Ctor<inventoryV1.InventoryServiceClient> & { service: inventoryV1.InventoryServiceDefinition } {
  return loadProto(INVENTORY_PROTO).llmgw.inventory.v1.InventoryService as any;
}

export function inventoryServiceDefinition(): inventoryV1.InventoryServiceDefinition {
  return inventoryClientConstructor().service;
}
