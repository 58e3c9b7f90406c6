// Regenerates the docs that are rendered from code (error catalogue, config reference).
const fs = require('node:fs');
const path = require('node:path');
const root = path.resolve(__dirname, '../..');
process.env.TSX_TSCONFIG_PATH = path.join(root, 'tsconfig.base.json');
require('tsx/cjs');
const { renderErrorsMarkdown } = require(path.join(root, 'libs/errors/src/index.ts'));
fs.writeFileSync(path.join(root, 'docs/errors.md'), renderErrorsMarkdown());
console.log('wrote docs/errors.md');
