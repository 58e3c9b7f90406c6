// Original file: llmgw/accounting/v1/accounting.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { Account as _llmgw_accounting_v1_Account, Account__Output as _llmgw_accounting_v1_Account__Output } from '../../../llmgw/accounting/v1/Account';
import type { ApiKey as _llmgw_accounting_v1_ApiKey, ApiKey__Output as _llmgw_accounting_v1_ApiKey__Output } from '../../../llmgw/accounting/v1/ApiKey';
import type { ChangePasswordRequest as _llmgw_accounting_v1_ChangePasswordRequest, ChangePasswordRequest__Output as _llmgw_accounting_v1_ChangePasswordRequest__Output } from '../../../llmgw/accounting/v1/ChangePasswordRequest';
import type { ClaimLinkCreated as _llmgw_accounting_v1_ClaimLinkCreated, ClaimLinkCreated__Output as _llmgw_accounting_v1_ClaimLinkCreated__Output } from '../../../llmgw/accounting/v1/ClaimLinkCreated';
import type { ClaimRequest as _llmgw_accounting_v1_ClaimRequest, ClaimRequest__Output as _llmgw_accounting_v1_ClaimRequest__Output } from '../../../llmgw/accounting/v1/ClaimRequest';
import type { ClaimResponse as _llmgw_accounting_v1_ClaimResponse, ClaimResponse__Output as _llmgw_accounting_v1_ClaimResponse__Output } from '../../../llmgw/accounting/v1/ClaimResponse';
import type { CreateClaimLinkRequest as _llmgw_accounting_v1_CreateClaimLinkRequest, CreateClaimLinkRequest__Output as _llmgw_accounting_v1_CreateClaimLinkRequest__Output } from '../../../llmgw/accounting/v1/CreateClaimLinkRequest';
import type { CreatedKey as _llmgw_accounting_v1_CreatedKey, CreatedKey__Output as _llmgw_accounting_v1_CreatedKey__Output } from '../../../llmgw/accounting/v1/CreatedKey';
import type { IssueKeyRequest as _llmgw_accounting_v1_IssueKeyRequest, IssueKeyRequest__Output as _llmgw_accounting_v1_IssueKeyRequest__Output } from '../../../llmgw/accounting/v1/IssueKeyRequest';
import type { ListAccountsRequest as _llmgw_accounting_v1_ListAccountsRequest, ListAccountsRequest__Output as _llmgw_accounting_v1_ListAccountsRequest__Output } from '../../../llmgw/accounting/v1/ListAccountsRequest';
import type { ListAccountsResponse as _llmgw_accounting_v1_ListAccountsResponse, ListAccountsResponse__Output as _llmgw_accounting_v1_ListAccountsResponse__Output } from '../../../llmgw/accounting/v1/ListAccountsResponse';
import type { ListKeysResponse as _llmgw_accounting_v1_ListKeysResponse, ListKeysResponse__Output as _llmgw_accounting_v1_ListKeysResponse__Output } from '../../../llmgw/accounting/v1/ListKeysResponse';
import type { RevokeMyKeyRequest as _llmgw_accounting_v1_RevokeMyKeyRequest, RevokeMyKeyRequest__Output as _llmgw_accounting_v1_RevokeMyKeyRequest__Output } from '../../../llmgw/accounting/v1/RevokeMyKeyRequest';
import type { SessionInfo as _llmgw_accounting_v1_SessionInfo, SessionInfo__Output as _llmgw_accounting_v1_SessionInfo__Output } from '../../../llmgw/accounting/v1/SessionInfo';
import type { SessionRequest as _llmgw_accounting_v1_SessionRequest, SessionRequest__Output as _llmgw_accounting_v1_SessionRequest__Output } from '../../../llmgw/accounting/v1/SessionRequest';
import type { SignInRequest as _llmgw_accounting_v1_SignInRequest, SignInRequest__Output as _llmgw_accounting_v1_SignInRequest__Output } from '../../../llmgw/accounting/v1/SignInRequest';
import type { SignInResponse as _llmgw_accounting_v1_SignInResponse, SignInResponse__Output as _llmgw_accounting_v1_SignInResponse__Output } from '../../../llmgw/accounting/v1/SignInResponse';
import type { SignOutResponse as _llmgw_accounting_v1_SignOutResponse, SignOutResponse__Output as _llmgw_accounting_v1_SignOutResponse__Output } from '../../../llmgw/accounting/v1/SignOutResponse';
import type { SignupRequest as _llmgw_accounting_v1_SignupRequest, SignupRequest__Output as _llmgw_accounting_v1_SignupRequest__Output } from '../../../llmgw/accounting/v1/SignupRequest';
import type { UpdateAccountRequest as _llmgw_accounting_v1_UpdateAccountRequest, UpdateAccountRequest__Output as _llmgw_accounting_v1_UpdateAccountRequest__Output } from '../../../llmgw/accounting/v1/UpdateAccountRequest';
import type { UpdateAccountResponse as _llmgw_accounting_v1_UpdateAccountResponse, UpdateAccountResponse__Output as _llmgw_accounting_v1_UpdateAccountResponse__Output } from '../../../llmgw/accounting/v1/UpdateAccountResponse';

export interface AccountsClient extends grpc.Client {
  ChangePassword(argument: _llmgw_accounting_v1_ChangePasswordRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Account__Output>): grpc.ClientUnaryCall;
  ChangePassword(argument: _llmgw_accounting_v1_ChangePasswordRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Account__Output>): grpc.ClientUnaryCall;
  ChangePassword(argument: _llmgw_accounting_v1_ChangePasswordRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Account__Output>): grpc.ClientUnaryCall;
  ChangePassword(argument: _llmgw_accounting_v1_ChangePasswordRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_Account__Output>): grpc.ClientUnaryCall;
  changePassword(argument: _llmgw_accounting_v1_ChangePasswordRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Account__Output>): grpc.ClientUnaryCall;
  changePassword(argument: _llmgw_accounting_v1_ChangePasswordRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Account__Output>): grpc.ClientUnaryCall;
  changePassword(argument: _llmgw_accounting_v1_ChangePasswordRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Account__Output>): grpc.ClientUnaryCall;
  changePassword(argument: _llmgw_accounting_v1_ChangePasswordRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_Account__Output>): grpc.ClientUnaryCall;
  
  Claim(argument: _llmgw_accounting_v1_ClaimRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ClaimResponse__Output>): grpc.ClientUnaryCall;
  Claim(argument: _llmgw_accounting_v1_ClaimRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ClaimResponse__Output>): grpc.ClientUnaryCall;
  Claim(argument: _llmgw_accounting_v1_ClaimRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ClaimResponse__Output>): grpc.ClientUnaryCall;
  Claim(argument: _llmgw_accounting_v1_ClaimRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ClaimResponse__Output>): grpc.ClientUnaryCall;
  claim(argument: _llmgw_accounting_v1_ClaimRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ClaimResponse__Output>): grpc.ClientUnaryCall;
  claim(argument: _llmgw_accounting_v1_ClaimRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ClaimResponse__Output>): grpc.ClientUnaryCall;
  claim(argument: _llmgw_accounting_v1_ClaimRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ClaimResponse__Output>): grpc.ClientUnaryCall;
  claim(argument: _llmgw_accounting_v1_ClaimRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ClaimResponse__Output>): grpc.ClientUnaryCall;
  
  CreateClaimLink(argument: _llmgw_accounting_v1_CreateClaimLinkRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ClaimLinkCreated__Output>): grpc.ClientUnaryCall;
  CreateClaimLink(argument: _llmgw_accounting_v1_CreateClaimLinkRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ClaimLinkCreated__Output>): grpc.ClientUnaryCall;
  CreateClaimLink(argument: _llmgw_accounting_v1_CreateClaimLinkRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ClaimLinkCreated__Output>): grpc.ClientUnaryCall;
  CreateClaimLink(argument: _llmgw_accounting_v1_CreateClaimLinkRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ClaimLinkCreated__Output>): grpc.ClientUnaryCall;
  createClaimLink(argument: _llmgw_accounting_v1_CreateClaimLinkRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ClaimLinkCreated__Output>): grpc.ClientUnaryCall;
  createClaimLink(argument: _llmgw_accounting_v1_CreateClaimLinkRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ClaimLinkCreated__Output>): grpc.ClientUnaryCall;
  createClaimLink(argument: _llmgw_accounting_v1_CreateClaimLinkRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ClaimLinkCreated__Output>): grpc.ClientUnaryCall;
  createClaimLink(argument: _llmgw_accounting_v1_CreateClaimLinkRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ClaimLinkCreated__Output>): grpc.ClientUnaryCall;
  
  GetSession(argument: _llmgw_accounting_v1_SessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_SessionInfo__Output>): grpc.ClientUnaryCall;
  GetSession(argument: _llmgw_accounting_v1_SessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_SessionInfo__Output>): grpc.ClientUnaryCall;
  GetSession(argument: _llmgw_accounting_v1_SessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_SessionInfo__Output>): grpc.ClientUnaryCall;
  GetSession(argument: _llmgw_accounting_v1_SessionRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_SessionInfo__Output>): grpc.ClientUnaryCall;
  getSession(argument: _llmgw_accounting_v1_SessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_SessionInfo__Output>): grpc.ClientUnaryCall;
  getSession(argument: _llmgw_accounting_v1_SessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_SessionInfo__Output>): grpc.ClientUnaryCall;
  getSession(argument: _llmgw_accounting_v1_SessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_SessionInfo__Output>): grpc.ClientUnaryCall;
  getSession(argument: _llmgw_accounting_v1_SessionRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_SessionInfo__Output>): grpc.ClientUnaryCall;
  
  IssueKey(argument: _llmgw_accounting_v1_IssueKeyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CreatedKey__Output>): grpc.ClientUnaryCall;
  IssueKey(argument: _llmgw_accounting_v1_IssueKeyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_CreatedKey__Output>): grpc.ClientUnaryCall;
  IssueKey(argument: _llmgw_accounting_v1_IssueKeyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CreatedKey__Output>): grpc.ClientUnaryCall;
  IssueKey(argument: _llmgw_accounting_v1_IssueKeyRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_CreatedKey__Output>): grpc.ClientUnaryCall;
  issueKey(argument: _llmgw_accounting_v1_IssueKeyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CreatedKey__Output>): grpc.ClientUnaryCall;
  issueKey(argument: _llmgw_accounting_v1_IssueKeyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_CreatedKey__Output>): grpc.ClientUnaryCall;
  issueKey(argument: _llmgw_accounting_v1_IssueKeyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_CreatedKey__Output>): grpc.ClientUnaryCall;
  issueKey(argument: _llmgw_accounting_v1_IssueKeyRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_CreatedKey__Output>): grpc.ClientUnaryCall;
  
  ListAccounts(argument: _llmgw_accounting_v1_ListAccountsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListAccountsResponse__Output>): grpc.ClientUnaryCall;
  ListAccounts(argument: _llmgw_accounting_v1_ListAccountsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ListAccountsResponse__Output>): grpc.ClientUnaryCall;
  ListAccounts(argument: _llmgw_accounting_v1_ListAccountsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListAccountsResponse__Output>): grpc.ClientUnaryCall;
  ListAccounts(argument: _llmgw_accounting_v1_ListAccountsRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ListAccountsResponse__Output>): grpc.ClientUnaryCall;
  listAccounts(argument: _llmgw_accounting_v1_ListAccountsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListAccountsResponse__Output>): grpc.ClientUnaryCall;
  listAccounts(argument: _llmgw_accounting_v1_ListAccountsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ListAccountsResponse__Output>): grpc.ClientUnaryCall;
  listAccounts(argument: _llmgw_accounting_v1_ListAccountsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListAccountsResponse__Output>): grpc.ClientUnaryCall;
  listAccounts(argument: _llmgw_accounting_v1_ListAccountsRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ListAccountsResponse__Output>): grpc.ClientUnaryCall;
  
  ListMyKeys(argument: _llmgw_accounting_v1_SessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListKeysResponse__Output>): grpc.ClientUnaryCall;
  ListMyKeys(argument: _llmgw_accounting_v1_SessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ListKeysResponse__Output>): grpc.ClientUnaryCall;
  ListMyKeys(argument: _llmgw_accounting_v1_SessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListKeysResponse__Output>): grpc.ClientUnaryCall;
  ListMyKeys(argument: _llmgw_accounting_v1_SessionRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ListKeysResponse__Output>): grpc.ClientUnaryCall;
  listMyKeys(argument: _llmgw_accounting_v1_SessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListKeysResponse__Output>): grpc.ClientUnaryCall;
  listMyKeys(argument: _llmgw_accounting_v1_SessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ListKeysResponse__Output>): grpc.ClientUnaryCall;
  listMyKeys(argument: _llmgw_accounting_v1_SessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ListKeysResponse__Output>): grpc.ClientUnaryCall;
  listMyKeys(argument: _llmgw_accounting_v1_SessionRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ListKeysResponse__Output>): grpc.ClientUnaryCall;
  
  RevokeMyKey(argument: _llmgw_accounting_v1_RevokeMyKeyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  RevokeMyKey(argument: _llmgw_accounting_v1_RevokeMyKeyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  RevokeMyKey(argument: _llmgw_accounting_v1_RevokeMyKeyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  RevokeMyKey(argument: _llmgw_accounting_v1_RevokeMyKeyRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  revokeMyKey(argument: _llmgw_accounting_v1_RevokeMyKeyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  revokeMyKey(argument: _llmgw_accounting_v1_RevokeMyKeyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  revokeMyKey(argument: _llmgw_accounting_v1_RevokeMyKeyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  revokeMyKey(argument: _llmgw_accounting_v1_RevokeMyKeyRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_ApiKey__Output>): grpc.ClientUnaryCall;
  
  SignIn(argument: _llmgw_accounting_v1_SignInRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_SignInResponse__Output>): grpc.ClientUnaryCall;
  SignIn(argument: _llmgw_accounting_v1_SignInRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_SignInResponse__Output>): grpc.ClientUnaryCall;
  SignIn(argument: _llmgw_accounting_v1_SignInRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_SignInResponse__Output>): grpc.ClientUnaryCall;
  SignIn(argument: _llmgw_accounting_v1_SignInRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_SignInResponse__Output>): grpc.ClientUnaryCall;
  signIn(argument: _llmgw_accounting_v1_SignInRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_SignInResponse__Output>): grpc.ClientUnaryCall;
  signIn(argument: _llmgw_accounting_v1_SignInRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_SignInResponse__Output>): grpc.ClientUnaryCall;
  signIn(argument: _llmgw_accounting_v1_SignInRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_SignInResponse__Output>): grpc.ClientUnaryCall;
  signIn(argument: _llmgw_accounting_v1_SignInRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_SignInResponse__Output>): grpc.ClientUnaryCall;
  
  SignOut(argument: _llmgw_accounting_v1_SessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_SignOutResponse__Output>): grpc.ClientUnaryCall;
  SignOut(argument: _llmgw_accounting_v1_SessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_SignOutResponse__Output>): grpc.ClientUnaryCall;
  SignOut(argument: _llmgw_accounting_v1_SessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_SignOutResponse__Output>): grpc.ClientUnaryCall;
  SignOut(argument: _llmgw_accounting_v1_SessionRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_SignOutResponse__Output>): grpc.ClientUnaryCall;
  signOut(argument: _llmgw_accounting_v1_SessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_SignOutResponse__Output>): grpc.ClientUnaryCall;
  signOut(argument: _llmgw_accounting_v1_SessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_SignOutResponse__Output>): grpc.ClientUnaryCall;
  signOut(argument: _llmgw_accounting_v1_SessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_SignOutResponse__Output>): grpc.ClientUnaryCall;
  signOut(argument: _llmgw_accounting_v1_SessionRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_SignOutResponse__Output>): grpc.ClientUnaryCall;
  
  Signup(argument: _llmgw_accounting_v1_SignupRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Account__Output>): grpc.ClientUnaryCall;
  Signup(argument: _llmgw_accounting_v1_SignupRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Account__Output>): grpc.ClientUnaryCall;
  Signup(argument: _llmgw_accounting_v1_SignupRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Account__Output>): grpc.ClientUnaryCall;
  Signup(argument: _llmgw_accounting_v1_SignupRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_Account__Output>): grpc.ClientUnaryCall;
  signup(argument: _llmgw_accounting_v1_SignupRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Account__Output>): grpc.ClientUnaryCall;
  signup(argument: _llmgw_accounting_v1_SignupRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_Account__Output>): grpc.ClientUnaryCall;
  signup(argument: _llmgw_accounting_v1_SignupRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_Account__Output>): grpc.ClientUnaryCall;
  signup(argument: _llmgw_accounting_v1_SignupRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_Account__Output>): grpc.ClientUnaryCall;
  
  UpdateAccount(argument: _llmgw_accounting_v1_UpdateAccountRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_UpdateAccountResponse__Output>): grpc.ClientUnaryCall;
  UpdateAccount(argument: _llmgw_accounting_v1_UpdateAccountRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_UpdateAccountResponse__Output>): grpc.ClientUnaryCall;
  UpdateAccount(argument: _llmgw_accounting_v1_UpdateAccountRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_UpdateAccountResponse__Output>): grpc.ClientUnaryCall;
  UpdateAccount(argument: _llmgw_accounting_v1_UpdateAccountRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_UpdateAccountResponse__Output>): grpc.ClientUnaryCall;
  updateAccount(argument: _llmgw_accounting_v1_UpdateAccountRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_UpdateAccountResponse__Output>): grpc.ClientUnaryCall;
  updateAccount(argument: _llmgw_accounting_v1_UpdateAccountRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_llmgw_accounting_v1_UpdateAccountResponse__Output>): grpc.ClientUnaryCall;
  updateAccount(argument: _llmgw_accounting_v1_UpdateAccountRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_llmgw_accounting_v1_UpdateAccountResponse__Output>): grpc.ClientUnaryCall;
  updateAccount(argument: _llmgw_accounting_v1_UpdateAccountRequest, callback: grpc.requestCallback<_llmgw_accounting_v1_UpdateAccountResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface AccountsHandlers extends grpc.UntypedServiceImplementation {
  ChangePassword: grpc.handleUnaryCall<_llmgw_accounting_v1_ChangePasswordRequest__Output, _llmgw_accounting_v1_Account>;
  
  Claim: grpc.handleUnaryCall<_llmgw_accounting_v1_ClaimRequest__Output, _llmgw_accounting_v1_ClaimResponse>;
  
  CreateClaimLink: grpc.handleUnaryCall<_llmgw_accounting_v1_CreateClaimLinkRequest__Output, _llmgw_accounting_v1_ClaimLinkCreated>;
  
  GetSession: grpc.handleUnaryCall<_llmgw_accounting_v1_SessionRequest__Output, _llmgw_accounting_v1_SessionInfo>;
  
  IssueKey: grpc.handleUnaryCall<_llmgw_accounting_v1_IssueKeyRequest__Output, _llmgw_accounting_v1_CreatedKey>;
  
  ListAccounts: grpc.handleUnaryCall<_llmgw_accounting_v1_ListAccountsRequest__Output, _llmgw_accounting_v1_ListAccountsResponse>;
  
  ListMyKeys: grpc.handleUnaryCall<_llmgw_accounting_v1_SessionRequest__Output, _llmgw_accounting_v1_ListKeysResponse>;
  
  RevokeMyKey: grpc.handleUnaryCall<_llmgw_accounting_v1_RevokeMyKeyRequest__Output, _llmgw_accounting_v1_ApiKey>;
  
  SignIn: grpc.handleUnaryCall<_llmgw_accounting_v1_SignInRequest__Output, _llmgw_accounting_v1_SignInResponse>;
  
  SignOut: grpc.handleUnaryCall<_llmgw_accounting_v1_SessionRequest__Output, _llmgw_accounting_v1_SignOutResponse>;
  
  Signup: grpc.handleUnaryCall<_llmgw_accounting_v1_SignupRequest__Output, _llmgw_accounting_v1_Account>;
  
  UpdateAccount: grpc.handleUnaryCall<_llmgw_accounting_v1_UpdateAccountRequest__Output, _llmgw_accounting_v1_UpdateAccountResponse>;
  
}

export interface AccountsDefinition extends grpc.ServiceDefinition {
  ChangePassword: MethodDefinition<_llmgw_accounting_v1_ChangePasswordRequest, _llmgw_accounting_v1_Account, _llmgw_accounting_v1_ChangePasswordRequest__Output, _llmgw_accounting_v1_Account__Output>
  Claim: MethodDefinition<_llmgw_accounting_v1_ClaimRequest, _llmgw_accounting_v1_ClaimResponse, _llmgw_accounting_v1_ClaimRequest__Output, _llmgw_accounting_v1_ClaimResponse__Output>
  CreateClaimLink: MethodDefinition<_llmgw_accounting_v1_CreateClaimLinkRequest, _llmgw_accounting_v1_ClaimLinkCreated, _llmgw_accounting_v1_CreateClaimLinkRequest__Output, _llmgw_accounting_v1_ClaimLinkCreated__Output>
  GetSession: MethodDefinition<_llmgw_accounting_v1_SessionRequest, _llmgw_accounting_v1_SessionInfo, _llmgw_accounting_v1_SessionRequest__Output, _llmgw_accounting_v1_SessionInfo__Output>
  IssueKey: MethodDefinition<_llmgw_accounting_v1_IssueKeyRequest, _llmgw_accounting_v1_CreatedKey, _llmgw_accounting_v1_IssueKeyRequest__Output, _llmgw_accounting_v1_CreatedKey__Output>
  ListAccounts: MethodDefinition<_llmgw_accounting_v1_ListAccountsRequest, _llmgw_accounting_v1_ListAccountsResponse, _llmgw_accounting_v1_ListAccountsRequest__Output, _llmgw_accounting_v1_ListAccountsResponse__Output>
  ListMyKeys: MethodDefinition<_llmgw_accounting_v1_SessionRequest, _llmgw_accounting_v1_ListKeysResponse, _llmgw_accounting_v1_SessionRequest__Output, _llmgw_accounting_v1_ListKeysResponse__Output>
  RevokeMyKey: MethodDefinition<_llmgw_accounting_v1_RevokeMyKeyRequest, _llmgw_accounting_v1_ApiKey, _llmgw_accounting_v1_RevokeMyKeyRequest__Output, _llmgw_accounting_v1_ApiKey__Output>
  SignIn: MethodDefinition<_llmgw_accounting_v1_SignInRequest, _llmgw_accounting_v1_SignInResponse, _llmgw_accounting_v1_SignInRequest__Output, _llmgw_accounting_v1_SignInResponse__Output>
  SignOut: MethodDefinition<_llmgw_accounting_v1_SessionRequest, _llmgw_accounting_v1_SignOutResponse, _llmgw_accounting_v1_SessionRequest__Output, _llmgw_accounting_v1_SignOutResponse__Output>
  Signup: MethodDefinition<_llmgw_accounting_v1_SignupRequest, _llmgw_accounting_v1_Account, _llmgw_accounting_v1_SignupRequest__Output, _llmgw_accounting_v1_Account__Output>
  UpdateAccount: MethodDefinition<_llmgw_accounting_v1_UpdateAccountRequest, _llmgw_accounting_v1_UpdateAccountResponse, _llmgw_accounting_v1_UpdateAccountRequest__Output, _llmgw_accounting_v1_UpdateAccountResponse__Output>
}
