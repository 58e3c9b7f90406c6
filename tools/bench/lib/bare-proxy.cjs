// The floor for a reverse proxy written in Node: node:http in front of undici pools over the
// engines, round robin, nothing else (no auth, limits, admission, logs or metrics). The data-path
// bench runs it beside nginx and the router, so the router's CPU per request can be read against
// what Node's HTTP server and client alone cost on the same machine in the same run.
//   node bare-proxy.cjs PORT UPSTREAM_URL [UPSTREAM_URL …]   (prints "listening PORT" when ready)
// BARE_PROXY_SPIN_US=N: the same proxy burning N µs of CPU per request (half before it forwards,
// half before it answers), to see what latency a Node proxy at the router's CPU cost has.
'use strict';
const http = require('node:http');
const { Pool } = require('undici');

const [port, ...upstreams] = process.argv.slice(2);
// No cap on connections per engine (the router sizes its pool from the engines' declared slots).
const pools = upstreams.map((u) => new Pool(u, { pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 0, bodyTimeout: 0 }));
let next = 0;
const HALF_SPIN_NS = BigInt(Math.round(Number(process.env.BARE_PROXY_SPIN_US ?? 0) * 500));
function spin() {
  if (HALF_SPIN_NS === 0n) return;
  const until = process.hrtime.bigint() + HALF_SPIN_NS;
  while (process.hrtime.bigint() < until);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    spin();
    const pool = pools[next++ % pools.length];
    pool
      .request({
        method: req.method,
        path: req.url,
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        body: Buffer.concat(chunks),
      })
      .then(
        (up) => {
          spin();
          res.writeHead(up.statusCode, { 'content-type': up.headers['content-type'] ?? 'application/json' });
          up.body.on('data', (c) => res.write(c));
          up.body.on('end', () => res.end());
          up.body.on('error', () => res.destroy());
        },
        () => {
          res.writeHead(502, { 'content-type': 'application/json' });
          res.end('{"error":{"message":"upstream failed","type":"upstream_error"}}');
        },
      );
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(port), '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));
