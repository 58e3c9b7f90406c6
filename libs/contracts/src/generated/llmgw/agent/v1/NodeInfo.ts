// Original file: llmgw/agent/v1/hardware.proto

import type { Gpu as _llmgw_agent_v1_Gpu, Gpu__Output as _llmgw_agent_v1_Gpu__Output } from '../../../llmgw/agent/v1/Gpu';
import type { Hca as _llmgw_agent_v1_Hca, Hca__Output as _llmgw_agent_v1_Hca__Output } from '../../../llmgw/agent/v1/Hca';
import type { FabricAttachment as _llmgw_agent_v1_FabricAttachment, FabricAttachment__Output as _llmgw_agent_v1_FabricAttachment__Output } from '../../../llmgw/agent/v1/FabricAttachment';
import type { Topology as _llmgw_agent_v1_Topology, Topology__Output as _llmgw_agent_v1_Topology__Output } from '../../../llmgw/agent/v1/Topology';
import type { Versions as _llmgw_agent_v1_Versions, Versions__Output as _llmgw_agent_v1_Versions__Output } from '../../../llmgw/agent/v1/Versions';
import type { Long } from '@grpc/proto-loader';

export interface NodeInfo {
  'nodeId'?: (string);
  'hostname'?: (string);
  'mgmtAddr'?: (string);
  'labels'?: ({[key: string]: string});
  'gpus'?: (_llmgw_agent_v1_Gpu)[];
  'hcas'?: (_llmgw_agent_v1_Hca)[];
  'fabrics'?: (_llmgw_agent_v1_FabricAttachment)[];
  'topology'?: (_llmgw_agent_v1_Topology | null);
  'versions'?: (_llmgw_agent_v1_Versions | null);
  'cpuCores'?: (number);
  'memoryTotalMib'?: (number | string | Long);
  'simulated'?: (boolean);
  'diskFreeMib'?: (number | string | Long);
  'diskTotalMib'?: (number | string | Long);
  'modelCacheDir'?: (string);
  'cpuModel'?: (string);
  'discoveryWarnings'?: (string)[];
}

export interface NodeInfo__Output {
  'nodeId': (string);
  'hostname': (string);
  'mgmtAddr': (string);
  'labels': ({[key: string]: string});
  'gpus': (_llmgw_agent_v1_Gpu__Output)[];
  'hcas': (_llmgw_agent_v1_Hca__Output)[];
  'fabrics': (_llmgw_agent_v1_FabricAttachment__Output)[];
  'topology': (_llmgw_agent_v1_Topology__Output | null);
  'versions': (_llmgw_agent_v1_Versions__Output | null);
  'cpuCores': (number);
  'memoryTotalMib': (number);
  'simulated': (boolean);
  'diskFreeMib': (number);
  'diskTotalMib': (number);
  'modelCacheDir': (string);
  'cpuModel': (string);
  'discoveryWarnings': (string)[];
}
