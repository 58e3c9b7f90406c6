// The image's HEALTHCHECK: GET $LLMGW_HEALTH_URL (default the router's admin
// port, http://127.0.0.1:9090/healthz); healthy on 200 within 2.5 s.
'use strict';
const http = require('node:http');

const url = process.env.LLMGW_HEALTH_URL || 'http://127.0.0.1:9090/healthz';
const req = http.get(url, { timeout: 2500 }, (res) => {
  res.resume();
  process.exit(res.statusCode === 200 ? 0 : 1);
});
req.on('timeout', () => req.destroy(new Error('timed out')));
req.on('error', (e) => {
  process.stderr.write(`healthcheck ${url}: ${e.message}\n`);
  process.exit(1);
});
