// The image's entry point: `llmgw <role> [args]`, with what a container
// platform hands over as files or environment turned into the role's flags
// (docs/deployment.md#container-images):
//
//   --config            /etc/llmgw/<role>.yaml when that file exists and no --config is given
//   --database-url      accounting: $LLMGW_DATABASE_URL, or the file $LLMGW_DATABASE_URL_FILE names
//   --redis-url         accounting: $LLMGW_REDIS_URL, or the file $LLMGW_REDIS_URL_FILE names
//
// TLS keys and provider keys are files already (the configs' tls.* and api_key_file paths):
// mount them as secrets. A flag given on the command line wins over the environment.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const CONFIG_DIR = process.env.LLMGW_CONFIG_DIR || '/etc/llmgw';
// Roles whose config file is not named after the role.
const CONFIG_NAME = { 'node-agent': 'agent.yaml' };
const FROM_ENV = {
  accounting: [
    ['--database-url', 'LLMGW_DATABASE_URL'],
    ['--redis-url', 'LLMGW_REDIS_URL'],
  ],
};

/** The value of $NAME, or the trimmed contents of the file $NAME_FILE names; undefined when neither is set. */
function secret(env, name) {
  if (env[`${name}_FILE`]) return fs.readFileSync(env[`${name}_FILE`], 'utf8').trim();
  return env[name] || undefined;
}

/** The argv `llmgw` is run with. */
function argvFor(args, env = process.env, exists = fs.existsSync) {
  const [role, ...rest] = args;
  if (!role || role.startsWith('-')) return args;
  const out = [role];
  // `node-agent run --config …`: the agent's subcommand comes first.
  if (role === 'node-agent' && rest[0] && !rest[0].startsWith('-')) out.push(rest.shift());
  const has = (flag) => rest.some((a) => a === flag || a.startsWith(`${flag}=`));
  const file = path.join(CONFIG_DIR, CONFIG_NAME[role] ?? `${role}.yaml`);
  if (role !== 'ctl' && !has('--config') && exists(file)) out.push('--config', file);
  for (const [flag, name] of FROM_ENV[role] ?? []) {
    const v = has(flag) ? undefined : secret(env, name);
    if (v) out.push(flag, v);
  }
  return [...out, ...rest];
}

module.exports = { argvFor };

if (require.main === module) {
  process.argv = [process.argv[0], path.join(ROOT, 'bin', 'llmgw.cjs'), ...argvFor(process.argv.slice(2))];
  require(path.join(ROOT, 'bin', 'llmgw.cjs'));
}
