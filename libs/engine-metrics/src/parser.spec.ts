import fc from 'fast-check';
import { parsePrometheusText, parseValue } from './parser';

describe('parsePrometheusText', () => {
  it.each<[string, string, { name: string; labels: Record<string, string>; value: number; timestampMs?: number }]>([
    ['plain', 'up 1', { name: 'up', labels: {}, value: 1 }],
    ['colons in names', 'vllm:num_requests_running{model_name="m"} 3.0', { name: 'vllm:num_requests_running', labels: { model_name: 'm' }, value: 3 }],
    [
      'escaped label values',
      'x{a="q\\"uote",b="back\\\\slash",c="new\\nline"} 2',
      { name: 'x', labels: { a: 'q"uote', b: 'back\\slash', c: 'new\nline' }, value: 2 },
    ],
    ['commas and braces inside values', 'x{a="1,2}",b=""} 0', { name: 'x', labels: { a: '1,2}', b: '' }, value: 0 }],
    ['trailing comma in labels', 'x{a="1",} 5', { name: 'x', labels: { a: '1' }, value: 5 }],
    ['a timestamp', 'x 7 1700000000000', { name: 'x', labels: {}, value: 7, timestampMs: 1700000000000 }],
    ['+Inf', 'x +Inf', { name: 'x', labels: {}, value: Infinity }],
    ['-Inf', 'x -Inf', { name: 'x', labels: {}, value: -Infinity }],
    ['exponent', 'x 1.7382173358407154e+09', { name: 'x', labels: {}, value: 1738217335.8407154 }],
    ['CRLF', 'x 4\r', { name: 'x', labels: {}, value: 4 }],
    ['ANSI colour codes', '\x1b[1mx\x1b[0m 9', { name: 'x', labels: {}, value: 9 }],
    ['tabs', 'x{a="b"}\t6', { name: 'x', labels: { a: 'b' }, value: 6 }],
  ])('reads %s', (_n, line, want) => {
    const p = parsePrometheusText(line);
    expect(p.junk).toEqual([]);
    expect(p.samples).toHaveLength(1);
    expect(p.samples[0]).toMatchObject(want);
  });

  it('reads NaN', () => {
    expect(Number.isNaN(parsePrometheusText('x NaN').samples[0].value)).toBe(true);
  });

  it.each([
    ['no value', 'x'],
    ['a word as value', 'vllm:cache_config_info gauge'],
    ['unterminated label', 'x{a="b} 1'],
    ['bad label name', 'x{1a="b"} 1'],
    ['missing quote', 'x{a=b} 1'],
    ['too many fields', 'x 1 2 3'],
    ['bad timestamp', 'x 1 soon'],
    ['starts with a digit', '9x 1'],
    ['unknown TYPE', '# TYPE x widget'],
  ])('reports %s as junk and never throws', (_n, line) => {
    const p = parsePrometheusText(`ok 1\n${line}\nok2 2`);
    expect(p.junk).toHaveLength(1);
    expect(p.junk[0]).toMatchObject({ line: 2, text: line });
    expect(p.samples.map((s) => s.name)).toEqual(['ok', 'ok2']);
  });

  it('groups histogram, summary and _created children under their family', () => {
    const text = [
      '# HELP h A histogram.',
      '# TYPE h histogram',
      'h_bucket{le="0.1"} 1',
      'h_bucket{le="+Inf"} 2',
      'h_sum 0.3',
      'h_count 2',
      'h_created 1.7e9',
      '# TYPE s summary',
      's{quantile="0.5"} 0.2',
      's_sum 1',
      's_count 4',
      '# HELP c_total A counter.\\nSecond line.',
      '# TYPE c_total counter',
      'c_total 3',
      '# TYPE c_created gauge',
      'c_created 1.7e9',
      '# a plain comment',
    ].join('\n');
    const p = parsePrometheusText(text);
    expect(p.junk).toEqual([]);
    expect(p.families.get('h')!.samples.map((s) => s.name)).toEqual(['h_bucket', 'h_bucket', 'h_sum', 'h_count', 'h_created']);
    expect(p.families.get('h')!.help).toBe('A histogram.');
    expect(p.families.get('s')!.samples).toHaveLength(3);
    expect(p.families.get('c_total')).toMatchObject({ type: 'counter', help: 'A counter.\nSecond line.' });
    expect(p.families.get('c_created')!.type).toBe('gauge');
    expect(p.samples.find((s) => s.name === 'h_bucket' && s.labels.le === '+Inf')!.value).toBe(2);
  });

  it.each([
    ['1', 1],
    ['-2.5', -2.5],
    ['1e3', 1000],
    ['.5', 0.5],
    ['Inf', Infinity],
    ['abc', undefined],
    ['', undefined],
    ['1.2.3', undefined],
  ])('parseValue(%j) = %p', (s, v) => {
    expect(parseValue(s)).toBe(v);
  });
});

describe('parsePrometheusText on arbitrary input', () => {
  const line = fc.oneof(
    fc.string(),
    fc.constantFrom('# TYPE x histogram', '# HELP x \\n', 'x_bucket{le="+Inf"} 1', 'x{a="\\"} 1', 'x{', '{}', ' 1', 'x 1 2', '\r', '\x1b[0m'),
  );
  it('never throws, and every non-blank, non-comment line is a sample or junk', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), (lines) => {
        const text = lines.join('\n');
        const p = parsePrometheusText(text);
        const data = text
          .replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '')
          .split('\n')
          .map((l) => l.replace(/\r$/, '').trim())
          .filter((l) => l !== '' && !l.startsWith('#'));
        expect(p.samples.length + p.junk.filter((j) => !j.text.trim().startsWith('#')).length).toBe(data.length);
      }),
      { numRuns: 300 },
    );
  });
});
