// The one wait helper lives in libs/contracts so that libraries @llmgw/testing
// depends on (grpc, stores, service, ...) can use it in their own specs.
export * from '@llmgw/contracts/wait';
