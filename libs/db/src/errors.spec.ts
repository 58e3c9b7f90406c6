import { isLlmgwError, LlmgwError } from '@llmgw/errors';
import { dbError, isUniqueViolation, unavailableReason } from './errors';

const pgErr = (code: string, message = 'boom') => Object.assign(new Error(message), { code });
const mapped = (e: unknown, opts?: { field?: string; what?: string }) => {
  const r = dbError(e, opts);
  if (!isLlmgwError(r)) throw new Error('not mapped');
  return r;
};

describe('database errors as statuses', () => {
  it.each([
    [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }), 'connection refused'],
    [Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), 'connection reset'],
    [new Error('Connection terminated unexpectedly'), 'connection lost'],
    [pgErr('57P01', 'terminating connection due to administrator command'), 'the database is shutting down or starting'],
    [pgErr('57014', 'canceling statement due to statement timeout'), 'a statement timed out'],
    [new Error('timeout exceeded when trying to connect'), 'no connection within the connect timeout'],
    [new Error('Query read timeout'), 'no answer within the statement timeout'],
    [pgErr('08006'), 'connection failure'],
    [pgErr('28P01', 'password authentication failed for user "llmgw"'), 'the database refused the credentials'],
    [pgErr('3D000', 'database "llmgw" does not exist'), 'the database does not exist'],
  ])('%s → UNAVAILABLE "database unavailable (%s)"', (e, reason) => {
    const r = mapped(e);
    expect(r.code).toBe('LLMGW_ERR_UNAVAILABLE');
    expect(r.message).toBe(`database unavailable (${reason})`);
    expect(r.message).not.toMatch(/127\.0\.0\.1|5432/);
    expect(unavailableReason(e)).toBe(reason);
  });

  it('a unique violation → ALREADY_EXISTS naming what exists', () => {
    const e = pgErr('23505', 'duplicate key value violates unique constraint "api_keys_project_name"');
    expect(isUniqueViolation(e)).toBe(true);
    const r = mapped(e, { what: 'key "ci"' });
    expect(r.code).toBe('LLMGW_ERR_ALREADY_EXISTS');
    expect(r.message).toBe('key "ci" already exists');
  });

  it('data the database refuses → INVALID_ARGUMENT with the field when known, never the SQL', () => {
    const nul = mapped(pgErr('22021', 'invalid byte sequence for encoding "UTF8": 0x00'), { field: 'name' });
    expect(nul.code).toBe('LLMGW_ERR_INVALID_ARGUMENT');
    expect(nul.message).toBe('name: contains a NUL byte or invalid UTF-8');
    expect(nul.param).toBe('name');
    const range = mapped(pgErr('22003', 'value "9223372036854775808" is out of range for type bigint'));
    expect(range.message).toBe('a number is out of range');
  });

  it('an LlmgwError passes through; an unknown failure is left as it is (INTERNAL at the gRPC edge)', () => {
    const own = new LlmgwError('LLMGW_ERR_NOT_FOUND', 'x');
    expect(dbError(own)).toBe(own);
    const odd = pgErr('XX000', 'internal_error');
    expect(dbError(odd)).toBe(odd);
    expect(unavailableReason(new Error('something else'))).toBeUndefined();
  });
});
