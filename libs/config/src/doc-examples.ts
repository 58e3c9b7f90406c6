import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/**
 * The fenced YAML blocks of a Markdown page whose first line is `# <file>`
 * (`# catalog.yaml`, `# agent.yaml`), parsed: lets a spec keep a page's
 * config examples valid.
 */
export function yamlExamples(markdownPath: string, file: string): unknown[] {
  const md = readFileSync(markdownPath, 'utf8');
  const out: unknown[] = [];
  for (const m of md.matchAll(/```yaml\n([\s\S]*?)```/g)) {
    const body = m[1];
    if (body.split('\n')[0].trim() === `# ${file}`) out.push(parse(body));
  }
  return out;
}
