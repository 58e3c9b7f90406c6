// Original file: llmgw/accounting/v1/accounting.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { ApiKey as _llmgw_accounting_v1_ApiKey, ApiKey__Output as _llmgw_accounting_v1_ApiKey__Output } from '../../../llmgw/accounting/v1/ApiKey';
import type { CreateKeyRequest as _llmgw_accounting_v1_CreateKeyRequest, CreateKeyRequest__Output as _llmgw_accounting_v1_CreateKeyRequest__Output } from '../../../llmgw/accounting/v1/CreateKeyRequest';
import type { CreateOrgRequest as _llmgw_accounting_v1_CreateOrgRequest, CreateOrgRequest__Output as _llmgw_accounting_v1_CreateOrgRequest__Output } from '../../../llmgw/accounting/v1/CreateOrgRequest';
import type { CreateProjectRequest as _llmgw_accounting_v1_CreateProjectRequest, CreateProjectRequest__Output as _llmgw_accounting_v1_CreateProjectRequest__Output } from '../../../llmgw/accounting/v1/CreateProjectRequest';
import type { CreateTeamRequest as _llmgw_accounting_v1_CreateTeamRequest, CreateTeamRequest__Output as _llmgw_accounting_v1_CreateTeamRequest__Output } from '../../../llmgw/accounting/v1/CreateTeamRequest';
import type { CreatedKey as _llmgw_accounting_v1_CreatedKey, CreatedKey__Output as _llmgw_accounting_v1_CreatedKey__Output } from '../../../llmgw/accounting/v1/CreatedKey';
import type { KeyReport as _llmgw_accounting_v1_KeyReport, KeyReport__Output as _llmgw_accounting_v1_KeyReport__Output } from '../../../llmgw/accounting/v1/KeyReport';
import type { Limit as _llmgw_accounting_v1_Limit, Limit__Output as _llmgw_accounting_v1_Limit__Output } from '../../../llmgw/accounting/v1/Limit';
import type { ListAuditRequest as _llmgw_accounting_v1_ListAuditRequest, ListAuditRequest__Output as _llmgw_accounting_v1_ListAuditRequest__Output } from '../../../llmgw/accounting/v1/ListAuditRequest';
import type { ListAuditResponse as _llmgw_accounting_v1_ListAuditResponse, ListAuditResponse__Output as _llmgw_accounting_v1_ListAuditResponse__Output } from '../../../llmgw/accounting/v1/ListAuditResponse';
import type { ListKeysRequest as _llmgw_accounting_v1_ListKeysRequest, ListKeysRequest__Output as _llmgw_accounting_v1_ListKeysRequest__Output } from '../../../llmgw/accounting/v1/ListKeysRequest';
import type { ListKeysResponse as _llmgw_accounting_v1_ListKeysResponse, ListKeysResponse__Output as _llmgw_accounting_v1_ListKeysResponse__Output } from '../../../llmgw/accounting/v1/ListKeysResponse';
import type { ListLimitsRequest as _llmgw_accounting_v1_ListLimitsRequest, ListLimitsRequest__Output as _llmgw_accounting_v1_ListLimitsRequest__Output } from '../../../llmgw/accounting/v1/ListLimitsRequest';
import type { ListLimitsResponse as _llmgw_accounting_v1_ListLimitsResponse, ListLimitsResponse__Output as _llmgw_accounting_v1_ListLimitsResponse__Output } from '../../../llmgw/accounting/v1/ListLimitsResponse';
import type { ListOrgsRequest as _llmgw_accounting_v1_ListOrgsRequest, ListOrgsRequest__Output as _llmgw_accounting_v1_ListOrgsRequest__Output } from '../../../llmgw/accounting/v1/ListOrgsRequest';
import type { ListOrgsResponse as _llmgw_accounting_v1_ListOrgsResponse, ListOrgsResponse__Output as _llmgw_accounting_v1_ListOrgsResponse__Output } from '../../../llmgw/accounting/v1/ListOrgsResponse';
import type { ListProjectsRequest as _llmgw_accounting_v1_ListProjectsRequest, ListProjectsRequest__Output as _llmgw_accounting_v1_ListProjectsRequest__Output } from '../../../llmgw/accounting/v1/ListProjectsRequest';
import type { ListProjectsResponse as _llmgw_accounting_v1_ListProjectsResponse, ListProjectsResponse__Output as _llmgw_accounting_v1_ListProjectsResponse__Output } from '../../../llmgw/accounting/v1/ListProjectsResponse';
import type { ListTeamsRequest as _llmgw_accounting_v1_ListTeamsRequest, ListTeamsRequest__Output as _llmgw_accounting_v1_ListTeamsRequest__Output } from '../../../llmgw/accounting/v1/ListTeamsRequest';
import type { ListTeamsResponse as _llmgw_accounting_v1_ListTeamsResponse, ListTeamsResponse__Output as _llmgw_accounting_v1_ListTeamsResponse__Output } from '../../../llmgw/accounting/v1/ListTeamsResponse';
import type { Org as _llmgw_accounting_v1_Org, Org__Output as _llmgw_accounting_v1_Org__Output } from '../../../llmgw/accounting/v1/Org';
import type { Project as _llmgw_accounting_v1_Project, Project__Output as _llmgw_accounting_v1_Project__Output } from '../../../llmgw/accounting/v1/Project';
import type { QueryUsageRequest as _llmgw_accounting_v1_QueryUsageRequest, QueryUsageRequest__Output as _llmgw_accounting_v1_QueryUsageRequest__Output } from '../../../llmgw/accounting/v1/QueryUsageRequest';
import type { QueryUsageResponse as _llmgw_accounting_v1_QueryUsageResponse, QueryUsageResponse__Output as _llmgw_accounting_v1_QueryUsageResponse__Output } from '../../../llmgw/accounting/v1/QueryUsageResponse';
import type { Ref as _llmgw_accounting_v1_Ref, Ref__Output as _llmgw_accounting_v1_Ref__Output } from '../../../llmgw/accounting/v1/Ref';
import type { RenameRequest as _llmgw_accounting_v1_RenameRequest, RenameRequest__Output as _llmgw_accounting_v1_RenameRequest__Output } from '../../../llmgw/accounting/v1/RenameRequest';
import type { ScopeRef as _llmgw_accounting_v1_ScopeRef, ScopeRef__Output as _llmgw_accounting_v1_ScopeRef__Output } from '../../../llmgw/accounting/v1/ScopeRef';
import type { SetLimitRequest as _llmgw_accounting_v1_SetLimitRequest, SetLimitRequest__Output as _llmgw_accounting_v1_SetLimitRequest__Output } from '../../../llmgw/accounting/v1/SetLimitRequest';
import type { Team as _llmgw_accounting_v1_Team, Team__Output as _llmgw_accounting_v1_Team__Output } from '../../../llmgw/accounting/v1/Team';
import type { UpdateKeyRequest as _llmgw_accounting_v1_UpdateKeyRequest, UpdateKeyRequest__Output as _llmgw_accounting_v1_UpdateKeyRequest__Output } from '../../../llmgw/accounting/v1/UpdateKeyRequest';
import type { UpdateProjectRequest as _llmgw_accounting_v1_UpdateProjectRequest, UpdateProjectRequest__Output as _llmgw_accounting_v1_UpdateProjectRequest__Output } from '../../../llmgw/accounting/v1/UpdateProjectRequest';

export interface TenancyAdminClient extends grpc.Client {
  CreateKey(argument: _llmgw_accounting_v1_CreateKeyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CreatedKey__Output>): grpc.ClientUnaryCall;
  CreateKey(argument: _llmgw_accounting_v1_CreateKeyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_CreatedKey__Output>): grpc.ClientUnaryCall;
  CreateKey(argument: _llmgw_accounting_v1_CreateKeyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CreatedKey__Output>): grpc.ClientUnaryCall;
  CreateKey(argument: _llmgw_accounting_v1_CreateKeyRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_CreatedKey__Output>): grpc.ClientUnaryCall;
  createKey(argument: _llmgw_accounting_v1_CreateKeyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CreatedKey__Output>): grpc.ClientUnaryCall;
  createKey(argument: _llmgw_accounting_v1_CreateKeyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_CreatedKey__Output>): grpc.ClientUnaryCall;
  createKey(argument: _llmgw_accounting_v1_CreateKeyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CreatedKey__Output>): grpc.ClientUnaryCall;
  createKey(argument: _llmgw_accounting_v1_CreateKeyRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_CreatedKey__Output>): grpc.ClientUnaryCall;
  
  CreateOrg(argument: _llmgw_accounting_v1_CreateOrgRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  CreateOrg(argument: _llmgw_accounting_v1_CreateOrgRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  CreateOrg(argument: _llmgw_accounting_v1_CreateOrgRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  CreateOrg(argument: _llmgw_accounting_v1_CreateOrgRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  createOrg(argument: _llmgw_accounting_v1_CreateOrgRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  createOrg(argument: _llmgw_accounting_v1_CreateOrgRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  createOrg(argument: _llmgw_accounting_v1_CreateOrgRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  createOrg(argument: _llmgw_accounting_v1_CreateOrgRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  
  CreateProject(argument: _llmgw_accounting_v1_CreateProjectRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  CreateProject(argument: _llmgw_accounting_v1_CreateProjectRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  CreateProject(argument: _llmgw_accounting_v1_CreateProjectRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  CreateProject(argument: _llmgw_accounting_v1_CreateProjectRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  createProject(argument: _llmgw_accounting_v1_CreateProjectRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  createProject(argument: _llmgw_accounting_v1_CreateProjectRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  createProject(argument: _llmgw_accounting_v1_CreateProjectRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  createProject(argument: _llmgw_accounting_v1_CreateProjectRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  
  CreateTeam(argument: _llmgw_accounting_v1_CreateTeamRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  CreateTeam(argument: _llmgw_accounting_v1_CreateTeamRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  CreateTeam(argument: _llmgw_accounting_v1_CreateTeamRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  CreateTeam(argument: _llmgw_accounting_v1_CreateTeamRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  createTeam(argument: _llmgw_accounting_v1_CreateTeamRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  createTeam(argument: _llmgw_accounting_v1_CreateTeamRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  createTeam(argument: _llmgw_accounting_v1_CreateTeamRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  createTeam(argument: _llmgw_accounting_v1_CreateTeamRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  
  ExplainKey(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_KeyReport__Output>): grpc.ClientUnaryCall;
  ExplainKey(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_KeyReport__Output>): grpc.ClientUnaryCall;
  ExplainKey(argument: _llmgw_accounting_v1_Ref, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_KeyReport__Output>): grpc.ClientUnaryCall;
  ExplainKey(argument: _llmgw_accounting_v1_Ref, callback: grpc.requestCallback<_llmgw_accounting_v1_KeyReport__Output>): grpc.ClientUnaryCall;
  explainKey(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_KeyReport__Output>): grpc.ClientUnaryCall;
  explainKey(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_KeyReport__Output>): grpc.ClientUnaryCall;
  explainKey(argument: _llmgw_accounting_v1_Ref, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_KeyReport__Output>): grpc.ClientUnaryCall;
  explainKey(argument: _llmgw_accounting_v1_Ref, callback: grpc.requestCallback<_llmgw_accounting_v1_KeyReport__Output>): grpc.ClientUnaryCall;
  
  GetKey(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  GetKey(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  GetKey(argument: _llmgw_accounting_v1_Ref, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  GetKey(argument: _llmgw_accounting_v1_Ref, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  getKey(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  getKey(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  getKey(argument: _llmgw_accounting_v1_Ref, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  getKey(argument: _llmgw_accounting_v1_Ref, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  
  GetLimit(argument: _llmgw_accounting_v1_ScopeRef, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Limit__Output>): grpc.ClientUnaryCall;
  GetLimit(argument: _llmgw_accounting_v1_ScopeRef, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Limit__Output>): grpc.ClientUnaryCall;
  GetLimit(argument: _llmgw_accounting_v1_ScopeRef, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Limit__Output>): grpc.ClientUnaryCall;
  GetLimit(argument: _llmgw_accounting_v1_ScopeRef, callback: grpc.requestCallback<_llmgw_accounting_v1_Limit__Output>): grpc.ClientUnaryCall;
  getLimit(argument: _llmgw_accounting_v1_ScopeRef, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Limit__Output>): grpc.ClientUnaryCall;
  getLimit(argument: _llmgw_accounting_v1_ScopeRef, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Limit__Output>): grpc.ClientUnaryCall;
  getLimit(argument: _llmgw_accounting_v1_ScopeRef, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Limit__Output>): grpc.ClientUnaryCall;
  getLimit(argument: _llmgw_accounting_v1_ScopeRef, callback: grpc.requestCallback<_llmgw_accounting_v1_Limit__Output>): grpc.ClientUnaryCall;
  
  GetOrg(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  GetOrg(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  GetOrg(argument: _llmgw_accounting_v1_Ref, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  GetOrg(argument: _llmgw_accounting_v1_Ref, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  getOrg(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  getOrg(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  getOrg(argument: _llmgw_accounting_v1_Ref, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  getOrg(argument: _llmgw_accounting_v1_Ref, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  
  GetProject(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  GetProject(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  GetProject(argument: _llmgw_accounting_v1_Ref, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  GetProject(argument: _llmgw_accounting_v1_Ref, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  getProject(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  getProject(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  getProject(argument: _llmgw_accounting_v1_Ref, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  getProject(argument: _llmgw_accounting_v1_Ref, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  
  GetTeam(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  GetTeam(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  GetTeam(argument: _llmgw_accounting_v1_Ref, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  GetTeam(argument: _llmgw_accounting_v1_Ref, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  getTeam(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  getTeam(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  getTeam(argument: _llmgw_accounting_v1_Ref, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  getTeam(argument: _llmgw_accounting_v1_Ref, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  
  ListAudit(argument: _llmgw_accounting_v1_ListAuditRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListAuditResponse__Output>): grpc.ClientUnaryCall;
  ListAudit(argument: _llmgw_accounting_v1_ListAuditRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ListAuditResponse__Output>): grpc.ClientUnaryCall;
  ListAudit(argument: _llmgw_accounting_v1_ListAuditRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListAuditResponse__Output>): grpc.ClientUnaryCall;
  ListAudit(argument: _llmgw_accounting_v1_ListAuditRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ListAuditResponse__Output>): grpc.ClientUnaryCall;
  listAudit(argument: _llmgw_accounting_v1_ListAuditRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListAuditResponse__Output>): grpc.ClientUnaryCall;
  listAudit(argument: _llmgw_accounting_v1_ListAuditRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ListAuditResponse__Output>): grpc.ClientUnaryCall;
  listAudit(argument: _llmgw_accounting_v1_ListAuditRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListAuditResponse__Output>): grpc.ClientUnaryCall;
  listAudit(argument: _llmgw_accounting_v1_ListAuditRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ListAuditResponse__Output>): grpc.ClientUnaryCall;
  
  ListKeys(argument: _llmgw_accounting_v1_ListKeysRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListKeysResponse__Output>): grpc.ClientUnaryCall;
  ListKeys(argument: _llmgw_accounting_v1_ListKeysRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ListKeysResponse__Output>): grpc.ClientUnaryCall;
  ListKeys(argument: _llmgw_accounting_v1_ListKeysRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListKeysResponse__Output>): grpc.ClientUnaryCall;
  ListKeys(argument: _llmgw_accounting_v1_ListKeysRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ListKeysResponse__Output>): grpc.ClientUnaryCall;
  listKeys(argument: _llmgw_accounting_v1_ListKeysRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListKeysResponse__Output>): grpc.ClientUnaryCall;
  listKeys(argument: _llmgw_accounting_v1_ListKeysRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ListKeysResponse__Output>): grpc.ClientUnaryCall;
  listKeys(argument: _llmgw_accounting_v1_ListKeysRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListKeysResponse__Output>): grpc.ClientUnaryCall;
  listKeys(argument: _llmgw_accounting_v1_ListKeysRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ListKeysResponse__Output>): grpc.ClientUnaryCall;
  
  ListLimits(argument: _llmgw_accounting_v1_ListLimitsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListLimitsResponse__Output>): grpc.ClientUnaryCall;
  ListLimits(argument: _llmgw_accounting_v1_ListLimitsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ListLimitsResponse__Output>): grpc.ClientUnaryCall;
  ListLimits(argument: _llmgw_accounting_v1_ListLimitsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListLimitsResponse__Output>): grpc.ClientUnaryCall;
  ListLimits(argument: _llmgw_accounting_v1_ListLimitsRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ListLimitsResponse__Output>): grpc.ClientUnaryCall;
  listLimits(argument: _llmgw_accounting_v1_ListLimitsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListLimitsResponse__Output>): grpc.ClientUnaryCall;
  listLimits(argument: _llmgw_accounting_v1_ListLimitsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ListLimitsResponse__Output>): grpc.ClientUnaryCall;
  listLimits(argument: _llmgw_accounting_v1_ListLimitsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListLimitsResponse__Output>): grpc.ClientUnaryCall;
  listLimits(argument: _llmgw_accounting_v1_ListLimitsRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ListLimitsResponse__Output>): grpc.ClientUnaryCall;
  
  ListOrgs(argument: _llmgw_accounting_v1_ListOrgsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListOrgsResponse__Output>): grpc.ClientUnaryCall;
  ListOrgs(argument: _llmgw_accounting_v1_ListOrgsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ListOrgsResponse__Output>): grpc.ClientUnaryCall;
  ListOrgs(argument: _llmgw_accounting_v1_ListOrgsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListOrgsResponse__Output>): grpc.ClientUnaryCall;
  ListOrgs(argument: _llmgw_accounting_v1_ListOrgsRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ListOrgsResponse__Output>): grpc.ClientUnaryCall;
  listOrgs(argument: _llmgw_accounting_v1_ListOrgsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListOrgsResponse__Output>): grpc.ClientUnaryCall;
  listOrgs(argument: _llmgw_accounting_v1_ListOrgsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ListOrgsResponse__Output>): grpc.ClientUnaryCall;
  listOrgs(argument: _llmgw_accounting_v1_ListOrgsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListOrgsResponse__Output>): grpc.ClientUnaryCall;
  listOrgs(argument: _llmgw_accounting_v1_ListOrgsRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ListOrgsResponse__Output>): grpc.ClientUnaryCall;
  
  ListProjects(argument: _llmgw_accounting_v1_ListProjectsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListProjectsResponse__Output>): grpc.ClientUnaryCall;
  ListProjects(argument: _llmgw_accounting_v1_ListProjectsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ListProjectsResponse__Output>): grpc.ClientUnaryCall;
  ListProjects(argument: _llmgw_accounting_v1_ListProjectsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListProjectsResponse__Output>): grpc.ClientUnaryCall;
  ListProjects(argument: _llmgw_accounting_v1_ListProjectsRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ListProjectsResponse__Output>): grpc.ClientUnaryCall;
  listProjects(argument: _llmgw_accounting_v1_ListProjectsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListProjectsResponse__Output>): grpc.ClientUnaryCall;
  listProjects(argument: _llmgw_accounting_v1_ListProjectsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ListProjectsResponse__Output>): grpc.ClientUnaryCall;
  listProjects(argument: _llmgw_accounting_v1_ListProjectsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListProjectsResponse__Output>): grpc.ClientUnaryCall;
  listProjects(argument: _llmgw_accounting_v1_ListProjectsRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ListProjectsResponse__Output>): grpc.ClientUnaryCall;
  
  ListTeams(argument: _llmgw_accounting_v1_ListTeamsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListTeamsResponse__Output>): grpc.ClientUnaryCall;
  ListTeams(argument: _llmgw_accounting_v1_ListTeamsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ListTeamsResponse__Output>): grpc.ClientUnaryCall;
  ListTeams(argument: _llmgw_accounting_v1_ListTeamsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListTeamsResponse__Output>): grpc.ClientUnaryCall;
  ListTeams(argument: _llmgw_accounting_v1_ListTeamsRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ListTeamsResponse__Output>): grpc.ClientUnaryCall;
  listTeams(argument: _llmgw_accounting_v1_ListTeamsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListTeamsResponse__Output>): grpc.ClientUnaryCall;
  listTeams(argument: _llmgw_accounting_v1_ListTeamsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ListTeamsResponse__Output>): grpc.ClientUnaryCall;
  listTeams(argument: _llmgw_accounting_v1_ListTeamsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListTeamsResponse__Output>): grpc.ClientUnaryCall;
  listTeams(argument: _llmgw_accounting_v1_ListTeamsRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ListTeamsResponse__Output>): grpc.ClientUnaryCall;
  
  QueryUsage(argument: _llmgw_accounting_v1_QueryUsageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_QueryUsageResponse__Output>): grpc.ClientUnaryCall;
  QueryUsage(argument: _llmgw_accounting_v1_QueryUsageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_QueryUsageResponse__Output>): grpc.ClientUnaryCall;
  QueryUsage(argument: _llmgw_accounting_v1_QueryUsageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_QueryUsageResponse__Output>): grpc.ClientUnaryCall;
  QueryUsage(argument: _llmgw_accounting_v1_QueryUsageRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_QueryUsageResponse__Output>): grpc.ClientUnaryCall;
  queryUsage(argument: _llmgw_accounting_v1_QueryUsageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_QueryUsageResponse__Output>): grpc.ClientUnaryCall;
  queryUsage(argument: _llmgw_accounting_v1_QueryUsageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_QueryUsageResponse__Output>): grpc.ClientUnaryCall;
  queryUsage(argument: _llmgw_accounting_v1_QueryUsageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_QueryUsageResponse__Output>): grpc.ClientUnaryCall;
  queryUsage(argument: _llmgw_accounting_v1_QueryUsageRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_QueryUsageResponse__Output>): grpc.ClientUnaryCall;
  
  RenameOrg(argument: _llmgw_accounting_v1_RenameRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  RenameOrg(argument: _llmgw_accounting_v1_RenameRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  RenameOrg(argument: _llmgw_accounting_v1_RenameRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  RenameOrg(argument: _llmgw_accounting_v1_RenameRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  renameOrg(argument: _llmgw_accounting_v1_RenameRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  renameOrg(argument: _llmgw_accounting_v1_RenameRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  renameOrg(argument: _llmgw_accounting_v1_RenameRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  renameOrg(argument: _llmgw_accounting_v1_RenameRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_Org__Output>): grpc.ClientUnaryCall;
  
  RenameTeam(argument: _llmgw_accounting_v1_RenameRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  RenameTeam(argument: _llmgw_accounting_v1_RenameRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  RenameTeam(argument: _llmgw_accounting_v1_RenameRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  RenameTeam(argument: _llmgw_accounting_v1_RenameRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  renameTeam(argument: _llmgw_accounting_v1_RenameRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  renameTeam(argument: _llmgw_accounting_v1_RenameRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  renameTeam(argument: _llmgw_accounting_v1_RenameRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  renameTeam(argument: _llmgw_accounting_v1_RenameRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_Team__Output>): grpc.ClientUnaryCall;
  
  RevokeKey(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  RevokeKey(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  RevokeKey(argument: _llmgw_accounting_v1_Ref, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  RevokeKey(argument: _llmgw_accounting_v1_Ref, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  revokeKey(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  revokeKey(argument: _llmgw_accounting_v1_Ref, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  revokeKey(argument: _llmgw_accounting_v1_Ref, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  revokeKey(argument: _llmgw_accounting_v1_Ref, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  
  SetLimit(argument: _llmgw_accounting_v1_SetLimitRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Limit__Output>): grpc.ClientUnaryCall;
  SetLimit(argument: _llmgw_accounting_v1_SetLimitRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Limit__Output>): grpc.ClientUnaryCall;
  SetLimit(argument: _llmgw_accounting_v1_SetLimitRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Limit__Output>): grpc.ClientUnaryCall;
  SetLimit(argument: _llmgw_accounting_v1_SetLimitRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_Limit__Output>): grpc.ClientUnaryCall;
  setLimit(argument: _llmgw_accounting_v1_SetLimitRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Limit__Output>): grpc.ClientUnaryCall;
  setLimit(argument: _llmgw_accounting_v1_SetLimitRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Limit__Output>): grpc.ClientUnaryCall;
  setLimit(argument: _llmgw_accounting_v1_SetLimitRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Limit__Output>): grpc.ClientUnaryCall;
  setLimit(argument: _llmgw_accounting_v1_SetLimitRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_Limit__Output>): grpc.ClientUnaryCall;
  
  UpdateKey(argument: _llmgw_accounting_v1_UpdateKeyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  UpdateKey(argument: _llmgw_accounting_v1_UpdateKeyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  UpdateKey(argument: _llmgw_accounting_v1_UpdateKeyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  UpdateKey(argument: _llmgw_accounting_v1_UpdateKeyRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  updateKey(argument: _llmgw_accounting_v1_UpdateKeyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  updateKey(argument: _llmgw_accounting_v1_UpdateKeyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  updateKey(argument: _llmgw_accounting_v1_UpdateKeyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  updateKey(argument: _llmgw_accounting_v1_UpdateKeyRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  
  UpdateProject(argument: _llmgw_accounting_v1_UpdateProjectRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  UpdateProject(argument: _llmgw_accounting_v1_UpdateProjectRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  UpdateProject(argument: _llmgw_accounting_v1_UpdateProjectRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  UpdateProject(argument: _llmgw_accounting_v1_UpdateProjectRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  updateProject(argument: _llmgw_accounting_v1_UpdateProjectRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  updateProject(argument: _llmgw_accounting_v1_UpdateProjectRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  updateProject(argument: _llmgw_accounting_v1_UpdateProjectRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  updateProject(argument: _llmgw_accounting_v1_UpdateProjectRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_Project__Output>): grpc.ClientUnaryCall;
  
}

export interface TenancyAdminHandlers extends grpc.UntypedServiceImplementation {
  CreateKey: grpc.handleUnaryCall<_llmgw_accounting_v1_CreateKeyRequest__Output, _llmgw_accounting_v1_CreatedKey>;
  
  CreateOrg: grpc.handleUnaryCall<_llmgw_accounting_v1_CreateOrgRequest__Output, _llmgw_accounting_v1_Org>;
  
  CreateProject: grpc.handleUnaryCall<_llmgw_accounting_v1_CreateProjectRequest__Output, _llmgw_accounting_v1_Project>;
  
  CreateTeam: grpc.handleUnaryCall<_llmgw_accounting_v1_CreateTeamRequest__Output, _llmgw_accounting_v1_Team>;
  
  ExplainKey: grpc.handleUnaryCall<_llmgw_accounting_v1_Ref__Output, _llmgw_accounting_v1_KeyReport>;
  
  GetKey: grpc.handleUnaryCall<_llmgw_accounting_v1_Ref__Output, _llmgw_accounting_v1_ApiKey>;
  
  GetLimit: grpc.handleUnaryCall<_llmgw_accounting_v1_ScopeRef__Output, _llmgw_accounting_v1_Limit>;
  
  GetOrg: grpc.handleUnaryCall<_llmgw_accounting_v1_Ref__Output, _llmgw_accounting_v1_Org>;
  
  GetProject: grpc.handleUnaryCall<_llmgw_accounting_v1_Ref__Output, _llmgw_accounting_v1_Project>;
  
  GetTeam: grpc.handleUnaryCall<_llmgw_accounting_v1_Ref__Output, _llmgw_accounting_v1_Team>;
  
  ListAudit: grpc.handleUnaryCall<_llmgw_accounting_v1_ListAuditRequest__Output, _llmgw_accounting_v1_ListAuditResponse>;
  
  ListKeys: grpc.handleUnaryCall<_llmgw_accounting_v1_ListKeysRequest__Output, _llmgw_accounting_v1_ListKeysResponse>;
  
  ListLimits: grpc.handleUnaryCall<_llmgw_accounting_v1_ListLimitsRequest__Output, _llmgw_accounting_v1_ListLimitsResponse>;
  
  ListOrgs: grpc.handleUnaryCall<_llmgw_accounting_v1_ListOrgsRequest__Output, _llmgw_accounting_v1_ListOrgsResponse>;
  
  ListProjects: grpc.handleUnaryCall<_llmgw_accounting_v1_ListProjectsRequest__Output, _llmgw_accounting_v1_ListProjectsResponse>;
  
  ListTeams: grpc.handleUnaryCall<_llmgw_accounting_v1_ListTeamsRequest__Output, _llmgw_accounting_v1_ListTeamsResponse>;
  
  QueryUsage: grpc.handleUnaryCall<_llmgw_accounting_v1_QueryUsageRequest__Output, _llmgw_accounting_v1_QueryUsageResponse>;
  
  RenameOrg: grpc.handleUnaryCall<_llmgw_accounting_v1_RenameRequest__Output, _llmgw_accounting_v1_Org>;
  
  RenameTeam: grpc.handleUnaryCall<_llmgw_accounting_v1_RenameRequest__Output, _llmgw_accounting_v1_Team>;
  
  RevokeKey: grpc.handleUnaryCall<_llmgw_accounting_v1_Ref__Output, _llmgw_accounting_v1_ApiKey>;
  
  SetLimit: grpc.handleUnaryCall<_llmgw_accounting_v1_SetLimitRequest__Output, _llmgw_accounting_v1_Limit>;
  
  UpdateKey: grpc.handleUnaryCall<_llmgw_accounting_v1_UpdateKeyRequest__Output, _llmgw_accounting_v1_ApiKey>;
  
  UpdateProject: grpc.handleUnaryCall<_llmgw_accounting_v1_UpdateProjectRequest__Output, _llmgw_accounting_v1_Project>;
  
}

export interface TenancyAdminDefinition extends grpc.ServiceDefinition {
  CreateKey: MethodDefinition<_llmgw_accounting_v1_CreateKeyRequest, _llmgw_accounting_v1_CreatedKey, _llmgw_accounting_v1_CreateKeyRequest__Output, _llmgw_accounting_v1_CreatedKey__Output>
  CreateOrg: MethodDefinition<_llmgw_accounting_v1_CreateOrgRequest, _llmgw_accounting_v1_Org, _llmgw_accounting_v1_CreateOrgRequest__Output, _llmgw_accounting_v1_Org__Output>
  CreateProject: MethodDefinition<_llmgw_accounting_v1_CreateProjectRequest, _llmgw_accounting_v1_Project, _llmgw_accounting_v1_CreateProjectRequest__Output, _llmgw_accounting_v1_Project__Output>
  CreateTeam: MethodDefinition<_llmgw_accounting_v1_CreateTeamRequest, _llmgw_accounting_v1_Team, _llmgw_accounting_v1_CreateTeamRequest__Output, _llmgw_accounting_v1_Team__Output>
  ExplainKey: MethodDefinition<_llmgw_accounting_v1_Ref, _llmgw_accounting_v1_KeyReport, _llmgw_accounting_v1_Ref__Output, _llmgw_accounting_v1_KeyReport__Output>
  GetKey: MethodDefinition<_llmgw_accounting_v1_Ref, _llmgw_accounting_v1_ApiKey, _llmgw_accounting_v1_Ref__Output, _llmgw_accounting_v1_ApiKey__Output>
  GetLimit: MethodDefinition<_llmgw_accounting_v1_ScopeRef, _llmgw_accounting_v1_Limit, _llmgw_accounting_v1_ScopeRef__Output, _llmgw_accounting_v1_Limit__Output>
  GetOrg: MethodDefinition<_llmgw_accounting_v1_Ref, _llmgw_accounting_v1_Org, _llmgw_accounting_v1_Ref__Output, _llmgw_accounting_v1_Org__Output>
  GetProject: MethodDefinition<_llmgw_accounting_v1_Ref, _llmgw_accounting_v1_Project, _llmgw_accounting_v1_Ref__Output, _llmgw_accounting_v1_Project__Output>
  GetTeam: MethodDefinition<_llmgw_accounting_v1_Ref, _llmgw_accounting_v1_Team, _llmgw_accounting_v1_Ref__Output, _llmgw_accounting_v1_Team__Output>
  ListAudit: MethodDefinition<_llmgw_accounting_v1_ListAuditRequest, _llmgw_accounting_v1_ListAuditResponse, _llmgw_accounting_v1_ListAuditRequest__Output, _llmgw_accounting_v1_ListAuditResponse__Output>
  ListKeys: MethodDefinition<_llmgw_accounting_v1_ListKeysRequest, _llmgw_accounting_v1_ListKeysResponse, _llmgw_accounting_v1_ListKeysRequest__Output, _llmgw_accounting_v1_ListKeysResponse__Output>
  ListLimits: MethodDefinition<_llmgw_accounting_v1_ListLimitsRequest, _llmgw_accounting_v1_ListLimitsResponse, _llmgw_accounting_v1_ListLimitsRequest__Output, _llmgw_accounting_v1_ListLimitsResponse__Output>
  ListOrgs: MethodDefinition<_llmgw_accounting_v1_ListOrgsRequest, _llmgw_accounting_v1_ListOrgsResponse, _llmgw_accounting_v1_ListOrgsRequest__Output, _llmgw_accounting_v1_ListOrgsResponse__Output>
  ListProjects: MethodDefinition<_llmgw_accounting_v1_ListProjectsRequest, _llmgw_accounting_v1_ListProjectsResponse, _llmgw_accounting_v1_ListProjectsRequest__Output, _llmgw_accounting_v1_ListProjectsResponse__Output>
  ListTeams: MethodDefinition<_llmgw_accounting_v1_ListTeamsRequest, _llmgw_accounting_v1_ListTeamsResponse, _llmgw_accounting_v1_ListTeamsRequest__Output, _llmgw_accounting_v1_ListTeamsResponse__Output>
  QueryUsage: MethodDefinition<_llmgw_accounting_v1_QueryUsageRequest, _llmgw_accounting_v1_QueryUsageResponse, _llmgw_accounting_v1_QueryUsageRequest__Output, _llmgw_accounting_v1_QueryUsageResponse__Output>
  RenameOrg: MethodDefinition<_llmgw_accounting_v1_RenameRequest, _llmgw_accounting_v1_Org, _llmgw_accounting_v1_RenameRequest__Output, _llmgw_accounting_v1_Org__Output>
  RenameTeam: MethodDefinition<_llmgw_accounting_v1_RenameRequest, _llmgw_accounting_v1_Team, _llmgw_accounting_v1_RenameRequest__Output, _llmgw_accounting_v1_Team__Output>
  RevokeKey: MethodDefinition<_llmgw_accounting_v1_Ref, _llmgw_accounting_v1_ApiKey, _llmgw_accounting_v1_Ref__Output, _llmgw_accounting_v1_ApiKey__Output>
  SetLimit: MethodDefinition<_llmgw_accounting_v1_SetLimitRequest, _llmgw_accounting_v1_Limit, _llmgw_accounting_v1_SetLimitRequest__Output, _llmgw_accounting_v1_Limit__Output>
  UpdateKey: MethodDefinition<_llmgw_accounting_v1_UpdateKeyRequest, _llmgw_accounting_v1_ApiKey, _llmgw_accounting_v1_UpdateKeyRequest__Output, _llmgw_accounting_v1_ApiKey__Output>
  UpdateProject: MethodDefinition<_llmgw_accounting_v1_UpdateProjectRequest, _llmgw_accounting_v1_Project, _llmgw_accounting_v1_UpdateProjectRequest__Output, _llmgw_accounting_v1_Project__Output>
}
