import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { Account as _llmgw_accounting_v1_Account, Account__Output as _llmgw_accounting_v1_Account__Output } from './llmgw/accounting/v1/Account';
import type { AccountsClient as _llmgw_accounting_v1_AccountsClient, AccountsDefinition as _llmgw_accounting_v1_AccountsDefinition } from './llmgw/accounting/v1/Accounts';
import type { ApiKey as _llmgw_accounting_v1_ApiKey, ApiKey__Output as _llmgw_accounting_v1_ApiKey__Output } from './llmgw/accounting/v1/ApiKey';
import type { AppendAuditRequest as _llmgw_accounting_v1_AppendAuditRequest, AppendAuditRequest__Output as _llmgw_accounting_v1_AppendAuditRequest__Output } from './llmgw/accounting/v1/AppendAuditRequest';
import type { AuditEvent as _llmgw_accounting_v1_AuditEvent, AuditEvent__Output as _llmgw_accounting_v1_AuditEvent__Output } from './llmgw/accounting/v1/AuditEvent';
import type { AuditLogClient as _llmgw_accounting_v1_AuditLogClient, AuditLogDefinition as _llmgw_accounting_v1_AuditLogDefinition } from './llmgw/accounting/v1/AuditLog';
import type { BudgetLimit as _llmgw_accounting_v1_BudgetLimit, BudgetLimit__Output as _llmgw_accounting_v1_BudgetLimit__Output } from './llmgw/accounting/v1/BudgetLimit';
import type { BudgetSpend as _llmgw_accounting_v1_BudgetSpend, BudgetSpend__Output as _llmgw_accounting_v1_BudgetSpend__Output } from './llmgw/accounting/v1/BudgetSpend';
import type { CapacityAdminClient as _llmgw_accounting_v1_CapacityAdminClient, CapacityAdminDefinition as _llmgw_accounting_v1_CapacityAdminDefinition } from './llmgw/accounting/v1/CapacityAdmin';
import type { CapacityProfile as _llmgw_accounting_v1_CapacityProfile, CapacityProfile__Output as _llmgw_accounting_v1_CapacityProfile__Output } from './llmgw/accounting/v1/CapacityProfile';
import type { CapacityProfileRef as _llmgw_accounting_v1_CapacityProfileRef, CapacityProfileRef__Output as _llmgw_accounting_v1_CapacityProfileRef__Output } from './llmgw/accounting/v1/CapacityProfileRef';
import type { ChangePasswordRequest as _llmgw_accounting_v1_ChangePasswordRequest, ChangePasswordRequest__Output as _llmgw_accounting_v1_ChangePasswordRequest__Output } from './llmgw/accounting/v1/ChangePasswordRequest';
import type { ClaimLinkCreated as _llmgw_accounting_v1_ClaimLinkCreated, ClaimLinkCreated__Output as _llmgw_accounting_v1_ClaimLinkCreated__Output } from './llmgw/accounting/v1/ClaimLinkCreated';
import type { ClaimRequest as _llmgw_accounting_v1_ClaimRequest, ClaimRequest__Output as _llmgw_accounting_v1_ClaimRequest__Output } from './llmgw/accounting/v1/ClaimRequest';
import type { ClaimResponse as _llmgw_accounting_v1_ClaimResponse, ClaimResponse__Output as _llmgw_accounting_v1_ClaimResponse__Output } from './llmgw/accounting/v1/ClaimResponse';
import type { CreateClaimLinkRequest as _llmgw_accounting_v1_CreateClaimLinkRequest, CreateClaimLinkRequest__Output as _llmgw_accounting_v1_CreateClaimLinkRequest__Output } from './llmgw/accounting/v1/CreateClaimLinkRequest';
import type { CreateKeyRequest as _llmgw_accounting_v1_CreateKeyRequest, CreateKeyRequest__Output as _llmgw_accounting_v1_CreateKeyRequest__Output } from './llmgw/accounting/v1/CreateKeyRequest';
import type { CreateOrgRequest as _llmgw_accounting_v1_CreateOrgRequest, CreateOrgRequest__Output as _llmgw_accounting_v1_CreateOrgRequest__Output } from './llmgw/accounting/v1/CreateOrgRequest';
import type { CreateProjectRequest as _llmgw_accounting_v1_CreateProjectRequest, CreateProjectRequest__Output as _llmgw_accounting_v1_CreateProjectRequest__Output } from './llmgw/accounting/v1/CreateProjectRequest';
import type { CreateTeamRequest as _llmgw_accounting_v1_CreateTeamRequest, CreateTeamRequest__Output as _llmgw_accounting_v1_CreateTeamRequest__Output } from './llmgw/accounting/v1/CreateTeamRequest';
import type { CreatedKey as _llmgw_accounting_v1_CreatedKey, CreatedKey__Output as _llmgw_accounting_v1_CreatedKey__Output } from './llmgw/accounting/v1/CreatedKey';
import type { IssueKeyRequest as _llmgw_accounting_v1_IssueKeyRequest, IssueKeyRequest__Output as _llmgw_accounting_v1_IssueKeyRequest__Output } from './llmgw/accounting/v1/IssueKeyRequest';
import type { KeyReport as _llmgw_accounting_v1_KeyReport, KeyReport__Output as _llmgw_accounting_v1_KeyReport__Output } from './llmgw/accounting/v1/KeyReport';
import type { KeyResolverClient as _llmgw_accounting_v1_KeyResolverClient, KeyResolverDefinition as _llmgw_accounting_v1_KeyResolverDefinition } from './llmgw/accounting/v1/KeyResolver';
import type { Limit as _llmgw_accounting_v1_Limit, Limit__Output as _llmgw_accounting_v1_Limit__Output } from './llmgw/accounting/v1/Limit';
import type { ListAccountsRequest as _llmgw_accounting_v1_ListAccountsRequest, ListAccountsRequest__Output as _llmgw_accounting_v1_ListAccountsRequest__Output } from './llmgw/accounting/v1/ListAccountsRequest';
import type { ListAccountsResponse as _llmgw_accounting_v1_ListAccountsResponse, ListAccountsResponse__Output as _llmgw_accounting_v1_ListAccountsResponse__Output } from './llmgw/accounting/v1/ListAccountsResponse';
import type { ListAuditRequest as _llmgw_accounting_v1_ListAuditRequest, ListAuditRequest__Output as _llmgw_accounting_v1_ListAuditRequest__Output } from './llmgw/accounting/v1/ListAuditRequest';
import type { ListAuditResponse as _llmgw_accounting_v1_ListAuditResponse, ListAuditResponse__Output as _llmgw_accounting_v1_ListAuditResponse__Output } from './llmgw/accounting/v1/ListAuditResponse';
import type { ListCapacityProfilesRequest as _llmgw_accounting_v1_ListCapacityProfilesRequest, ListCapacityProfilesRequest__Output as _llmgw_accounting_v1_ListCapacityProfilesRequest__Output } from './llmgw/accounting/v1/ListCapacityProfilesRequest';
import type { ListCapacityProfilesResponse as _llmgw_accounting_v1_ListCapacityProfilesResponse, ListCapacityProfilesResponse__Output as _llmgw_accounting_v1_ListCapacityProfilesResponse__Output } from './llmgw/accounting/v1/ListCapacityProfilesResponse';
import type { ListKeysRequest as _llmgw_accounting_v1_ListKeysRequest, ListKeysRequest__Output as _llmgw_accounting_v1_ListKeysRequest__Output } from './llmgw/accounting/v1/ListKeysRequest';
import type { ListKeysResponse as _llmgw_accounting_v1_ListKeysResponse, ListKeysResponse__Output as _llmgw_accounting_v1_ListKeysResponse__Output } from './llmgw/accounting/v1/ListKeysResponse';
import type { ListLimitsRequest as _llmgw_accounting_v1_ListLimitsRequest, ListLimitsRequest__Output as _llmgw_accounting_v1_ListLimitsRequest__Output } from './llmgw/accounting/v1/ListLimitsRequest';
import type { ListLimitsResponse as _llmgw_accounting_v1_ListLimitsResponse, ListLimitsResponse__Output as _llmgw_accounting_v1_ListLimitsResponse__Output } from './llmgw/accounting/v1/ListLimitsResponse';
import type { ListOrgsRequest as _llmgw_accounting_v1_ListOrgsRequest, ListOrgsRequest__Output as _llmgw_accounting_v1_ListOrgsRequest__Output } from './llmgw/accounting/v1/ListOrgsRequest';
import type { ListOrgsResponse as _llmgw_accounting_v1_ListOrgsResponse, ListOrgsResponse__Output as _llmgw_accounting_v1_ListOrgsResponse__Output } from './llmgw/accounting/v1/ListOrgsResponse';
import type { ListProjectsRequest as _llmgw_accounting_v1_ListProjectsRequest, ListProjectsRequest__Output as _llmgw_accounting_v1_ListProjectsRequest__Output } from './llmgw/accounting/v1/ListProjectsRequest';
import type { ListProjectsResponse as _llmgw_accounting_v1_ListProjectsResponse, ListProjectsResponse__Output as _llmgw_accounting_v1_ListProjectsResponse__Output } from './llmgw/accounting/v1/ListProjectsResponse';
import type { ListTeamsRequest as _llmgw_accounting_v1_ListTeamsRequest, ListTeamsRequest__Output as _llmgw_accounting_v1_ListTeamsRequest__Output } from './llmgw/accounting/v1/ListTeamsRequest';
import type { ListTeamsResponse as _llmgw_accounting_v1_ListTeamsResponse, ListTeamsResponse__Output as _llmgw_accounting_v1_ListTeamsResponse__Output } from './llmgw/accounting/v1/ListTeamsResponse';
import type { Org as _llmgw_accounting_v1_Org, Org__Output as _llmgw_accounting_v1_Org__Output } from './llmgw/accounting/v1/Org';
import type { Project as _llmgw_accounting_v1_Project, Project__Output as _llmgw_accounting_v1_Project__Output } from './llmgw/accounting/v1/Project';
import type { QueryUsageRequest as _llmgw_accounting_v1_QueryUsageRequest, QueryUsageRequest__Output as _llmgw_accounting_v1_QueryUsageRequest__Output } from './llmgw/accounting/v1/QueryUsageRequest';
import type { QueryUsageResponse as _llmgw_accounting_v1_QueryUsageResponse, QueryUsageResponse__Output as _llmgw_accounting_v1_QueryUsageResponse__Output } from './llmgw/accounting/v1/QueryUsageResponse';
import type { Ref as _llmgw_accounting_v1_Ref, Ref__Output as _llmgw_accounting_v1_Ref__Output } from './llmgw/accounting/v1/Ref';
import type { RenameRequest as _llmgw_accounting_v1_RenameRequest, RenameRequest__Output as _llmgw_accounting_v1_RenameRequest__Output } from './llmgw/accounting/v1/RenameRequest';
import type { ResolveKeyRequest as _llmgw_accounting_v1_ResolveKeyRequest, ResolveKeyRequest__Output as _llmgw_accounting_v1_ResolveKeyRequest__Output } from './llmgw/accounting/v1/ResolveKeyRequest';
import type { ResolvedKey as _llmgw_accounting_v1_ResolvedKey, ResolvedKey__Output as _llmgw_accounting_v1_ResolvedKey__Output } from './llmgw/accounting/v1/ResolvedKey';
import type { ResolvedLimits as _llmgw_accounting_v1_ResolvedLimits, ResolvedLimits__Output as _llmgw_accounting_v1_ResolvedLimits__Output } from './llmgw/accounting/v1/ResolvedLimits';
import type { RevokeMyKeyRequest as _llmgw_accounting_v1_RevokeMyKeyRequest, RevokeMyKeyRequest__Output as _llmgw_accounting_v1_RevokeMyKeyRequest__Output } from './llmgw/accounting/v1/RevokeMyKeyRequest';
import type { ScopeLimit as _llmgw_accounting_v1_ScopeLimit, ScopeLimit__Output as _llmgw_accounting_v1_ScopeLimit__Output } from './llmgw/accounting/v1/ScopeLimit';
import type { ScopeRef as _llmgw_accounting_v1_ScopeRef, ScopeRef__Output as _llmgw_accounting_v1_ScopeRef__Output } from './llmgw/accounting/v1/ScopeRef';
import type { SessionInfo as _llmgw_accounting_v1_SessionInfo, SessionInfo__Output as _llmgw_accounting_v1_SessionInfo__Output } from './llmgw/accounting/v1/SessionInfo';
import type { SessionRequest as _llmgw_accounting_v1_SessionRequest, SessionRequest__Output as _llmgw_accounting_v1_SessionRequest__Output } from './llmgw/accounting/v1/SessionRequest';
import type { SetLimitRequest as _llmgw_accounting_v1_SetLimitRequest, SetLimitRequest__Output as _llmgw_accounting_v1_SetLimitRequest__Output } from './llmgw/accounting/v1/SetLimitRequest';
import type { SignInRequest as _llmgw_accounting_v1_SignInRequest, SignInRequest__Output as _llmgw_accounting_v1_SignInRequest__Output } from './llmgw/accounting/v1/SignInRequest';
import type { SignInResponse as _llmgw_accounting_v1_SignInResponse, SignInResponse__Output as _llmgw_accounting_v1_SignInResponse__Output } from './llmgw/accounting/v1/SignInResponse';
import type { SignOutResponse as _llmgw_accounting_v1_SignOutResponse, SignOutResponse__Output as _llmgw_accounting_v1_SignOutResponse__Output } from './llmgw/accounting/v1/SignOutResponse';
import type { SignupRequest as _llmgw_accounting_v1_SignupRequest, SignupRequest__Output as _llmgw_accounting_v1_SignupRequest__Output } from './llmgw/accounting/v1/SignupRequest';
import type { Team as _llmgw_accounting_v1_Team, Team__Output as _llmgw_accounting_v1_Team__Output } from './llmgw/accounting/v1/Team';
import type { TenancyAdminClient as _llmgw_accounting_v1_TenancyAdminClient, TenancyAdminDefinition as _llmgw_accounting_v1_TenancyAdminDefinition } from './llmgw/accounting/v1/TenancyAdmin';
import type { UpdateAccountRequest as _llmgw_accounting_v1_UpdateAccountRequest, UpdateAccountRequest__Output as _llmgw_accounting_v1_UpdateAccountRequest__Output } from './llmgw/accounting/v1/UpdateAccountRequest';
import type { UpdateAccountResponse as _llmgw_accounting_v1_UpdateAccountResponse, UpdateAccountResponse__Output as _llmgw_accounting_v1_UpdateAccountResponse__Output } from './llmgw/accounting/v1/UpdateAccountResponse';
import type { UpdateKeyRequest as _llmgw_accounting_v1_UpdateKeyRequest, UpdateKeyRequest__Output as _llmgw_accounting_v1_UpdateKeyRequest__Output } from './llmgw/accounting/v1/UpdateKeyRequest';
import type { UpdateProjectRequest as _llmgw_accounting_v1_UpdateProjectRequest, UpdateProjectRequest__Output as _llmgw_accounting_v1_UpdateProjectRequest__Output } from './llmgw/accounting/v1/UpdateProjectRequest';
import type { UsageRow as _llmgw_accounting_v1_UsageRow, UsageRow__Output as _llmgw_accounting_v1_UsageRow__Output } from './llmgw/accounting/v1/UsageRow';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  llmgw: {
    accounting: {
      v1: {
        Account: MessageTypeDefinition<_llmgw_accounting_v1_Account, _llmgw_accounting_v1_Account__Output>
        Accounts: SubtypeConstructor<typeof grpc.Client, _llmgw_accounting_v1_AccountsClient> & { service: _llmgw_accounting_v1_AccountsDefinition }
        ApiKey: MessageTypeDefinition<_llmgw_accounting_v1_ApiKey, _llmgw_accounting_v1_ApiKey__Output>
        AppendAuditRequest: MessageTypeDefinition<_llmgw_accounting_v1_AppendAuditRequest, _llmgw_accounting_v1_AppendAuditRequest__Output>
        AuditEvent: MessageTypeDefinition<_llmgw_accounting_v1_AuditEvent, _llmgw_accounting_v1_AuditEvent__Output>
        AuditLog: SubtypeConstructor<typeof grpc.Client, _llmgw_accounting_v1_AuditLogClient> & { service: _llmgw_accounting_v1_AuditLogDefinition }
        BudgetLimit: MessageTypeDefinition<_llmgw_accounting_v1_BudgetLimit, _llmgw_accounting_v1_BudgetLimit__Output>
        BudgetSpend: MessageTypeDefinition<_llmgw_accounting_v1_BudgetSpend, _llmgw_accounting_v1_BudgetSpend__Output>
        CapacityAdmin: SubtypeConstructor<typeof grpc.Client, _llmgw_accounting_v1_CapacityAdminClient> & { service: _llmgw_accounting_v1_CapacityAdminDefinition }
        CapacityProfile: MessageTypeDefinition<_llmgw_accounting_v1_CapacityProfile, _llmgw_accounting_v1_CapacityProfile__Output>
        CapacityProfileRef: MessageTypeDefinition<_llmgw_accounting_v1_CapacityProfileRef, _llmgw_accounting_v1_CapacityProfileRef__Output>
        ChangePasswordRequest: MessageTypeDefinition<_llmgw_accounting_v1_ChangePasswordRequest, _llmgw_accounting_v1_ChangePasswordRequest__Output>
        ClaimLinkCreated: MessageTypeDefinition<_llmgw_accounting_v1_ClaimLinkCreated, _llmgw_accounting_v1_ClaimLinkCreated__Output>
        ClaimRequest: MessageTypeDefinition<_llmgw_accounting_v1_ClaimRequest, _llmgw_accounting_v1_ClaimRequest__Output>
        ClaimResponse: MessageTypeDefinition<_llmgw_accounting_v1_ClaimResponse, _llmgw_accounting_v1_ClaimResponse__Output>
        CreateClaimLinkRequest: MessageTypeDefinition<_llmgw_accounting_v1_CreateClaimLinkRequest, _llmgw_accounting_v1_CreateClaimLinkRequest__Output>
        CreateKeyRequest: MessageTypeDefinition<_llmgw_accounting_v1_CreateKeyRequest, _llmgw_accounting_v1_CreateKeyRequest__Output>
        CreateOrgRequest: MessageTypeDefinition<_llmgw_accounting_v1_CreateOrgRequest, _llmgw_accounting_v1_CreateOrgRequest__Output>
        CreateProjectRequest: MessageTypeDefinition<_llmgw_accounting_v1_CreateProjectRequest, _llmgw_accounting_v1_CreateProjectRequest__Output>
        CreateTeamRequest: MessageTypeDefinition<_llmgw_accounting_v1_CreateTeamRequest, _llmgw_accounting_v1_CreateTeamRequest__Output>
        CreatedKey: MessageTypeDefinition<_llmgw_accounting_v1_CreatedKey, _llmgw_accounting_v1_CreatedKey__Output>
        IssueKeyRequest: MessageTypeDefinition<_llmgw_accounting_v1_IssueKeyRequest, _llmgw_accounting_v1_IssueKeyRequest__Output>
        KeyReport: MessageTypeDefinition<_llmgw_accounting_v1_KeyReport, _llmgw_accounting_v1_KeyReport__Output>
        KeyResolver: SubtypeConstructor<typeof grpc.Client, _llmgw_accounting_v1_KeyResolverClient> & { service: _llmgw_accounting_v1_KeyResolverDefinition }
        Limit: MessageTypeDefinition<_llmgw_accounting_v1_Limit, _llmgw_accounting_v1_Limit__Output>
        ListAccountsRequest: MessageTypeDefinition<_llmgw_accounting_v1_ListAccountsRequest, _llmgw_accounting_v1_ListAccountsRequest__Output>
        ListAccountsResponse: MessageTypeDefinition<_llmgw_accounting_v1_ListAccountsResponse, _llmgw_accounting_v1_ListAccountsResponse__Output>
        ListAuditRequest: MessageTypeDefinition<_llmgw_accounting_v1_ListAuditRequest, _llmgw_accounting_v1_ListAuditRequest__Output>
        ListAuditResponse: MessageTypeDefinition<_llmgw_accounting_v1_ListAuditResponse, _llmgw_accounting_v1_ListAuditResponse__Output>
        ListCapacityProfilesRequest: MessageTypeDefinition<_llmgw_accounting_v1_ListCapacityProfilesRequest, _llmgw_accounting_v1_ListCapacityProfilesRequest__Output>
        ListCapacityProfilesResponse: MessageTypeDefinition<_llmgw_accounting_v1_ListCapacityProfilesResponse, _llmgw_accounting_v1_ListCapacityProfilesResponse__Output>
        ListKeysRequest: MessageTypeDefinition<_llmgw_accounting_v1_ListKeysRequest, _llmgw_accounting_v1_ListKeysRequest__Output>
        ListKeysResponse: MessageTypeDefinition<_llmgw_accounting_v1_ListKeysResponse, _llmgw_accounting_v1_ListKeysResponse__Output>
        ListLimitsRequest: MessageTypeDefinition<_llmgw_accounting_v1_ListLimitsRequest, _llmgw_accounting_v1_ListLimitsRequest__Output>
        ListLimitsResponse: MessageTypeDefinition<_llmgw_accounting_v1_ListLimitsResponse, _llmgw_accounting_v1_ListLimitsResponse__Output>
        ListOrgsRequest: MessageTypeDefinition<_llmgw_accounting_v1_ListOrgsRequest, _llmgw_accounting_v1_ListOrgsRequest__Output>
        ListOrgsResponse: MessageTypeDefinition<_llmgw_accounting_v1_ListOrgsResponse, _llmgw_accounting_v1_ListOrgsResponse__Output>
        ListProjectsRequest: MessageTypeDefinition<_llmgw_accounting_v1_ListProjectsRequest, _llmgw_accounting_v1_ListProjectsRequest__Output>
        ListProjectsResponse: MessageTypeDefinition<_llmgw_accounting_v1_ListProjectsResponse, _llmgw_accounting_v1_ListProjectsResponse__Output>
        ListTeamsRequest: MessageTypeDefinition<_llmgw_accounting_v1_ListTeamsRequest, _llmgw_accounting_v1_ListTeamsRequest__Output>
        ListTeamsResponse: MessageTypeDefinition<_llmgw_accounting_v1_ListTeamsResponse, _llmgw_accounting_v1_ListTeamsResponse__Output>
        Org: MessageTypeDefinition<_llmgw_accounting_v1_Org, _llmgw_accounting_v1_Org__Output>
        Project: MessageTypeDefinition<_llmgw_accounting_v1_Project, _llmgw_accounting_v1_Project__Output>
        QueryUsageRequest: MessageTypeDefinition<_llmgw_accounting_v1_QueryUsageRequest, _llmgw_accounting_v1_QueryUsageRequest__Output>
        QueryUsageResponse: MessageTypeDefinition<_llmgw_accounting_v1_QueryUsageResponse, _llmgw_accounting_v1_QueryUsageResponse__Output>
        Ref: MessageTypeDefinition<_llmgw_accounting_v1_Ref, _llmgw_accounting_v1_Ref__Output>
        RenameRequest: MessageTypeDefinition<_llmgw_accounting_v1_RenameRequest, _llmgw_accounting_v1_RenameRequest__Output>
        ResolveKeyRequest: MessageTypeDefinition<_llmgw_accounting_v1_ResolveKeyRequest, _llmgw_accounting_v1_ResolveKeyRequest__Output>
        ResolvedKey: MessageTypeDefinition<_llmgw_accounting_v1_ResolvedKey, _llmgw_accounting_v1_ResolvedKey__Output>
        ResolvedLimits: MessageTypeDefinition<_llmgw_accounting_v1_ResolvedLimits, _llmgw_accounting_v1_ResolvedLimits__Output>
        RevokeMyKeyRequest: MessageTypeDefinition<_llmgw_accounting_v1_RevokeMyKeyRequest, _llmgw_accounting_v1_RevokeMyKeyRequest__Output>
        ScopeLimit: MessageTypeDefinition<_llmgw_accounting_v1_ScopeLimit, _llmgw_accounting_v1_ScopeLimit__Output>
        ScopeRef: MessageTypeDefinition<_llmgw_accounting_v1_ScopeRef, _llmgw_accounting_v1_ScopeRef__Output>
        SessionInfo: MessageTypeDefinition<_llmgw_accounting_v1_SessionInfo, _llmgw_accounting_v1_SessionInfo__Output>
        SessionRequest: MessageTypeDefinition<_llmgw_accounting_v1_SessionRequest, _llmgw_accounting_v1_SessionRequest__Output>
        SetLimitRequest: MessageTypeDefinition<_llmgw_accounting_v1_SetLimitRequest, _llmgw_accounting_v1_SetLimitRequest__Output>
        SignInRequest: MessageTypeDefinition<_llmgw_accounting_v1_SignInRequest, _llmgw_accounting_v1_SignInRequest__Output>
        SignInResponse: MessageTypeDefinition<_llmgw_accounting_v1_SignInResponse, _llmgw_accounting_v1_SignInResponse__Output>
        SignOutResponse: MessageTypeDefinition<_llmgw_accounting_v1_SignOutResponse, _llmgw_accounting_v1_SignOutResponse__Output>
        SignupRequest: MessageTypeDefinition<_llmgw_accounting_v1_SignupRequest, _llmgw_accounting_v1_SignupRequest__Output>
        Team: MessageTypeDefinition<_llmgw_accounting_v1_Team, _llmgw_accounting_v1_Team__Output>
        TenancyAdmin: SubtypeConstructor<typeof grpc.Client, _llmgw_accounting_v1_TenancyAdminClient> & { service: _llmgw_accounting_v1_TenancyAdminDefinition }
        UpdateAccountRequest: MessageTypeDefinition<_llmgw_accounting_v1_UpdateAccountRequest, _llmgw_accounting_v1_UpdateAccountRequest__Output>
        UpdateAccountResponse: MessageTypeDefinition<_llmgw_accounting_v1_UpdateAccountResponse, _llmgw_accounting_v1_UpdateAccountResponse__Output>
        UpdateKeyRequest: MessageTypeDefinition<_llmgw_accounting_v1_UpdateKeyRequest, _llmgw_accounting_v1_UpdateKeyRequest__Output>
        UpdateProjectRequest: MessageTypeDefinition<_llmgw_accounting_v1_UpdateProjectRequest, _llmgw_accounting_v1_UpdateProjectRequest__Output>
        UsageRow: MessageTypeDefinition<_llmgw_accounting_v1_UsageRow, _llmgw_accounting_v1_UsageRow__Output>
      }
    }
  }
}

