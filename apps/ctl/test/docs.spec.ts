import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command, Option } from 'commander';
import { buildProgram, CtlContext } from '../src/main';

/**
 * The docs and the CLI name the same commands: every `llmgw ctl …` written in
 * README.md or docs/*.md is a real command path with real options, and every
 * ctl command is in docs/ctl.md.
 */
const ROOT = join(__dirname, '../../..');
const DOC_FILES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

function program(): Command {
  return buildProgram(new CtlContext({ stdout: { write: () => 0 }, stderr: { write: () => 0 } }, { actor: 'docs' }));
}

/** Every command below `root`, as its path of names ("org create", "cert issue-node"). */
function commandPaths(root: Command): string[][] {
  const out: string[][] = [];
  const walk = (c: Command, path: string[]) => {
    for (const sub of c.commands) {
      if (sub.name() === 'help') continue;
      const p = [...path, sub.name()];
      out.push(p);
      walk(sub, p);
    }
  };
  walk(root, []);
  return out;
}

function findOption(cmds: Command[], flag: string): Option | undefined {
  for (const c of cmds) {
    const o = c.options.find((x) => x.long === flag || x.short === flag || (x.negate && x.long === flag));
    if (o) return o;
  }
  return undefined;
}

const WORD = /^[a-z][a-z0-9-]*$/;

interface Use {
  file: string;
  text: string;
}

/** Each `llmgw ctl …` in the docs, up to the end of its line, a closing backtick or a comment. */
function uses(text: string, file: string): Use[] {
  return [...text.matchAll(/llmgw ctl((?: \S[^\n`|#]*)?)/g)].map((m) => ({ file, text: m[1].trim() }));
}

/** What is wrong with one use, or undefined. Tokens that are neither words nor flags (placeholders, values, `…`) end the path. */
function check(root: Command, use: Use): string | undefined {
  const tokens = use.text
    .split(/\s+/)
    .filter(Boolean)
    .map((t) => t.replace(/[,.;:)]+$/, ''));
  const chain: Command[] = [root];
  let cmd = root;
  let pathDone = false;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.includes('…')) break; // the rest is elided
    if (/^--?[a-zA-Z]/.test(t)) {
      const flag = t.split('=')[0];
      if (flag === '--help' || flag === '-h') continue;
      const o = findOption(chain, flag);
      const where =
        cmd === root
          ? 'ctl'
          : `"${chain
              .slice(0, -1)
              .reverse()
              .map((c) => c.name())
              .join(' ')}"`;
      if (!o) return `${use.file}: "llmgw ctl ${use.text}": ${where} has no option ${flag}`;
      if ((o.required || o.optional) && !t.includes('=')) i++;
      continue;
    }
    if (pathDone || !WORD.test(t)) {
      pathDone = true;
      continue;
    }
    const sub = cmd.commands.find((c) => c.name() === t || c.aliases().includes(t));
    if (sub) {
      cmd = sub;
      chain.unshift(sub);
      continue;
    }
    // A word that is not a subcommand is an argument, if this command takes one.
    if (cmd === root || (cmd.commands.length > 0 && cmd.registeredArguments.length === 0)) {
      return `${use.file}: "llmgw ctl ${use.text}": no command "${[
        ...chain
          .slice(0, -1)
          .reverse()
          .map((c) => c.name()),
        t,
      ].join(' ')}"`;
    }
    pathDone = true;
  }
  return undefined;
}

describe('llmgw ctl in the docs', () => {
  const root = program();
  const all = DOC_FILES.flatMap((f) => uses(readFileSync(join(ROOT, f), 'utf8'), f));

  it('finds the commands the docs name', () => {
    expect(all.length).toBeGreaterThan(30);
    expect(all.map((u) => u.text)).toContain('nodes');
  });

  it('names only commands and options that exist', () => {
    expect(all.map((u) => check(root, u)).filter(Boolean)).toEqual([]);
  });

  it('notices a command, a subcommand or an option that does not exist', () => {
    const probe = (text: string) => check(root, { file: 'x.md', text });
    expect(probe('nodes')).toBeUndefined();
    expect(probe('org create acme --json')).toBeUndefined();
    expect(probe('cert issue-node gpu-a-01 --ca-dir /etc/llmgw/ca --dir out')).toBeUndefined();
    expect(probe('--config x.yaml nodes show gpu-a-01')).toBeUndefined();
    expect(probe('logs llama-8b-7f3a --tail 200 -f')).toBeUndefined();
    expect(probe('cert … --role <role>')).toBeUndefined();
    expect(probe('frobnicate')).toMatch(/no command "frobnicate"/);
    expect(probe('org frobnicate acme')).toMatch(/no command "org frobnicate"/);
    expect(probe('cordon gpu-a-01 --no-such-flag')).toMatch(/has no option --no-such-flag/);
    expect(probe('key create --project p --nmae x')).toMatch(/"key create" has no option --nmae/);
  });

  it('documents every ctl command in docs/ctl.md', () => {
    const doc = readFileSync(join(ROOT, 'docs/ctl.md'), 'utf8');
    const paths = commandPaths(root);
    expect(paths.length).toBeGreaterThan(30);
    // A command is documented when its path starts a code span (`org create <name>`, `llmgw ctl nodes`).
    const documented = (p: string[]) => new RegExp('`(llmgw ctl )?' + p.join(' ').replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '(?=[ `])').test(doc);
    expect(paths.filter((p) => !documented(p)).map((p) => p.join(' '))).toEqual([]);
    expect(documented(['org', 'frobnicate'])).toBe(false);
  });
});
