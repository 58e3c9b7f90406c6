import { ERRORS, type ErrorCode } from './catalogue';

const GRPC_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];

/** docs/errors.md, rendered from the catalogue (a spec keeps the file in step). */
export function renderErrorsMarkdown(): string {
  const lines = [
    '# Error catalogue',
    '',
    '<!-- Generated from libs/errors/src/catalogue.ts by `npm run docs:gen`; do not edit by hand. -->',
    '',
    'Every error llmgw returns carries one of these codes. On the client API the body is',
    "OpenAI's error JSON (`error.message`, `error.type`, `error.param`, `error.code`) plus",
    '`error.llmgw_code`; on internal gRPC APIs the status code below is used with the',
    'message. Errors that ask the client to come back later also send `Retry-After`.',
    '',
    '| code | HTTP | gRPC | OpenAI type | OpenAI code | meaning |',
    '|---|---|---|---|---|---|',
  ];
  for (const code of Object.keys(ERRORS) as ErrorCode[]) {
    const s = ERRORS[code];
    lines.push(`| \`${code}\` | ${s.http} | ${GRPC_NAMES[s.grpc]} | \`${s.type}\` | ${s.openaiCode ? '`' + s.openaiCode + '`' : '—'} | ${s.description} |`);
  }
  return lines.join('\n') + '\n';
}
