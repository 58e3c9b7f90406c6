// Builds one app into dist/apps/<name>/main.js: a single CommonJS bundle of the
// app and its @llmgw/* libs; npm packages stay external (installed alongside).
const esbuild = require('esbuild');
const path = require('node:path');
const fs = require('node:fs');

const root = path.resolve(__dirname, '../..');
const name = process.argv[2];
const entry = path.join(root, 'apps', name, 'src/main.ts');
if (!name || !fs.existsSync(entry)) {
  console.error(`usage: build-app.cjs <app>  (no entry at ${entry})`);
  process.exit(2);
}
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
esbuild.buildSync({
  entryPoints: [entry],
  outfile: path.join(root, 'dist/apps', name, 'main.js'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  tsconfig: path.join(root, 'tsconfig.base.json'),
  external: [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})],
  logLevel: 'warning',
});
console.log(`built dist/apps/${name}/main.js`);
