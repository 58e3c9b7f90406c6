// Local ESLint rules of llmgw (loaded by eslint.config.cjs).

const READS = /^(readFileSync|readFile)$/;
// A name that says "TLS": tls, agent_tls, accounting_tls, loadTls, clientTls, …
const TLS_NAME = /(^|_)tls($|_)|Tls/i;

/**
 * no-tls-file-reads: an app never reads key or certificate files itself;
 * the service host reads the config's `tls` blocks (docs/operations.md,
 * "Redis, leader locks and lost dependencies"). Reports every readFile/readFileSync call (bare or as
 * `fs.readFileSync`) in a file whose code names TLS (an identifier or a
 * property such as `tls`, `accounting_tls`, `loadTls`); strings and comments
 * do not count, so a command that only prints "tls.cert" is not flagged.
 */
const noTlsFileReads = {
  meta: {
    type: 'problem',
    docs: { description: 'apps do not read TLS files; the service host does' },
    schema: [],
    messages: { read: 'This file handles TLS and reads a file itself: TLS material comes from the service host (the config `tls` block), not readFileSync.' },
  },
  create(context) {
    const reads = [];
    let mentionsTls = false;
    const note = (name) => {
      if (!mentionsTls && typeof name === 'string' && TLS_NAME.test(name)) mentionsTls = true;
    };
    return {
      Identifier(node) {
        note(node.name);
      },
      CallExpression(node) {
        const c = node.callee;
        const name = c.type === 'Identifier' ? c.name : c.type === 'MemberExpression' && c.property.type === 'Identifier' ? c.property.name : undefined;
        if (name && READS.test(name)) reads.push(node);
      },
      'Program:exit'() {
        if (!mentionsTls) return;
        for (const node of reads) context.report({ node, messageId: 'read' });
      },
    };
  },
};

module.exports = { rules: { 'no-tls-file-reads': noTlsFileReads } };
