// Runs the official MCP conformance suite's server scenarios (npm `@modelcontextprotocol/conformance`,
// pinned in package.json) against a bridge's `/mcp` and prints one line per scenario.
//
// The suite sends no credentials, so it talks to a pass-through on another loopback port that adds
// `Authorization: Bearer <token>` and names the hub's own `Host` when the suite names the
// pass-through's; every other header (a rebinding `Host`, a foreign `Origin`) reaches the bridge
// unchanged. Usage: node conformance-run.mjs <hub port> <token file> <output dir> [suite args…]
// The suite needs Node >= 22 (`fs.globSync`): the pinned `node` package provides it.

import http from 'node:http';
import { readFileSync, existsSync } from 'node:fs';
import { report } from './conformance-report.mjs';
import { spawn } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const [hubPort, tokenFile, outputDir, ...suiteArgs] = process.argv.slice(2);
if (!hubPort || !tokenFile || !outputDir) {
  console.error('usage: node conformance-run.mjs <hub port> <token file> <output dir> [suite args…]');
  process.exit(2);
}
const token = readFileSync(tokenFile, 'utf8').trim();

const proxy = http.createServer((request, response) => {
  const ownAuthority = `127.0.0.1:${proxy.address().port}`;
  const ownLocal = `localhost:${proxy.address().port}`;
  const headers = { ...request.headers, authorization: `Bearer ${token}` };
  if (headers.host === ownAuthority || headers.host === ownLocal) {
    headers.host = `127.0.0.1:${hubPort}`;
  }
  for (const name of ['origin', 'referer']) {
    const value = headers[name];
    if (typeof value === 'string') {
      headers[name] = value.replace(`//${ownAuthority}`, `//127.0.0.1:${hubPort}`).replace(`//${ownLocal}`, `//localhost:${hubPort}`);
    }
  }
  const upstream = http.request(
    { host: '127.0.0.1', port: Number(hubPort), method: request.method, path: request.url, headers },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    },
  );
  upstream.on('error', (err) => {
    response.writeHead(502);
    response.end(String(err));
  });
  request.pipe(upstream);
  response.on('close', () => upstream.destroy());
});

await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${proxy.address().port}/mcp`;
const cli = join(here, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const node = join(here, 'node_modules/node/bin/node');
const child = spawn(existsSync(node) ? node : process.execPath, [cli, 'server', '--url', url, '-o', outputDir, ...suiteArgs], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
let printed = '';
child.stdout.on('data', (chunk) => {
  printed += chunk;
});
const code = await new Promise((resolve) => child.on('close', resolve));
proxy.close();

for (const line of report(outputDir, /^server-/)) console.log(line);
console.log(`suite exit ${code}`);
if (process.env.CONFORMANCE_VERBOSE) console.log(printed);
