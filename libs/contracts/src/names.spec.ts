import { DETAIL_MAX_LENGTH, NAME_MAX_LENGTH, detailOf, isValidName, nameProblem } from './names';

describe('the name rule', () => {
  it('accepts ordinary names, including non-ASCII letters and spaces inside', () => {
    for (const n of ['acme', 'ML team', 'projet-été', 'チーム', 'a'.repeat(NAME_MAX_LENGTH), 'key.v2_final']) expect(nameProblem(n, 'name')).toBeUndefined();
  });

  it.each([
    ['NUL', 'a\u0000b'],
    ['ESC (a terminal escape)', 'x\u001b[2J'],
    ['DEL', 'x\u007f'],
    ['newline', 'a\nb'],
    ['tab', 'a\tb'],
    ['a C1 control', 'a\u0085b'],
    ['a line separator', 'a\u2028b'],
    ['a bidi override', 'a\u202eb'],
  ])('refuses %s, naming the field and not repeating the value', (_what, value) => {
    const p = nameProblem(value, 'team.name');
    expect(p).toBe('team.name must not contain control characters');
    expect(isValidName(value)).toBe(false);
  });

  it('refuses empty (unless optional), too long and non-strings', () => {
    expect(nameProblem('', 'name')).toBe('name is required');
    expect(nameProblem('', 'band', { optional: true })).toBeUndefined();
    expect(nameProblem('a'.repeat(NAME_MAX_LENGTH + 1), 'name')).toBe(`name must be at most ${NAME_MAX_LENGTH} characters (got ${NAME_MAX_LENGTH + 1})`);
    expect(nameProblem('abcdef', 'ref', { max: 5 })).toMatch(/at most 5/);
    expect(nameProblem(42, 'name')).toBe('name must be a string');
  });

  it('detailOf bounds what an error repeats and masks control characters', () => {
    const long = 'x'.repeat(100_000);
    expect(detailOf(long)).toBe('x'.repeat(DETAIL_MAX_LENGTH) + '…');
    expect(detailOf('a\u001b[2Jb\u0000')).toBe('a?[2Jb?');
    expect(detailOf('short')).toBe('short');
  });
});
