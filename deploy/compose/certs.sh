#!/bin/sh
# The compose topology's PKI (deploy/compose/compose.yaml, service `certs`): a private CA, a
# certificate per role with the compose service names as SANs, one per node-agent (CN = node id),
# and the engine key the placement-scheduler and the routers derive replica secrets from.
# Made once; a second run keeps what exists (`llmgw ctl cert` never overwrites without --force).
#   LLMGW   the llmgw command (default: the image's)
#   OUT     where to write (default: /var/lib/llmgw/tls, the `tls` volume)
set -eu
LLMGW=${LLMGW:-"node /opt/llmgw/bin/llmgw.cjs"}
OUT=${OUT:-/var/lib/llmgw/tls}
mkdir -p "$OUT"
cert() { $LLMGW ctl cert "$@" --ca-dir "$OUT" --dir "$OUT" --json >/dev/null; }
[ -f "$OUT/ca.crt" ] || $LLMGW ctl cert init-ca --dir "$OUT" --cn llmgw-compose-ca --json >/dev/null
[ -f "$OUT/accounting.crt" ] || cert issue-server accounting --role accounting --san accounting --san localhost
[ -f "$OUT/admission.crt" ] || cert issue-server admission --role admission --san admission-1 --san admission-2 --san localhost
[ -f "$OUT/inventory.crt" ] || cert issue-server inventory --role inventory --san inventory --san localhost
[ -f "$OUT/placement-scheduler.crt" ] || cert issue-server placement-scheduler --role placement-scheduler --client --san placement-scheduler --san localhost
[ -f "$OUT/router.crt" ] || cert issue-client router --role router
[ -f "$OUT/operator.crt" ] || cert issue-client operator --role operator
for node in node-a node-b; do
  [ -f "$OUT/$node.crt" ] || cert issue-node "$node"
done
[ -f "$OUT/engine.key" ] || (umask 077 && node -e "process.stdout.write(require('node:crypto').randomBytes(32).toString('hex') + '\n')" > "$OUT/engine.key")
echo "certificates in $OUT: $(ls "$OUT" | tr '\n' ' ')"
