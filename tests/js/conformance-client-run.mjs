// Runs the official MCP conformance suite's client scenarios (npm `@modelcontextprotocol/conformance`)
// against the bridge's MCP host, one scenario at a time, and prints one line per scenario.
//
// The suite starts a mock server per scenario and runs `<client command> <url>`; the command
// (`conformance-client`, tests/src/bin) has a real bridge host that URL and call its tools.
// Usage: node conformance-client-run.mjs <client command> <output dir> <expected-failures file>
//        <scenario>[@<spec version>]…
// Each scenario's exit (0: passed, or failed only as the expected-failures file says) is printed.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { report } from './conformance-report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const [command, outputDir, expected, ...scenarios] = process.argv.slice(2);
if (!command || !outputDir || !expected || scenarios.length === 0) {
  console.error('usage: node conformance-client-run.mjs <client command> <output dir> <expected-failures file> <scenario>[@<spec version>]…');
  process.exit(2);
}
const cli = join(here, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const pinnedNode = join(here, 'node_modules/node/bin/node');
const node = existsSync(pinnedNode) ? pinnedNode : process.execPath;

function run(entry) {
  const [scenario, version] = entry.split('@');
  const dir = join(outputDir, scenario.replace(/\//g, '_'));
  mkdirSync(dir, { recursive: true });
  const args = [cli, 'client', '--command', command, '--scenario', scenario, '--expected-failures', expected, '-o', dir, '--timeout', '30000'];
  if (version) args.push('--spec-version', version);
  return new Promise((resolve) => {
    const child = spawn(node, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let printed = '';
    child.stdout.on('data', (chunk) => (printed += chunk));
    child.stderr.on('data', (chunk) => (printed += chunk));
    child.on('close', (code) => resolve({ scenario, dir, code, printed }));
  });
}

// Two at a time: each scenario starts a bridge, and the machine may have two cores.
const results = [];
for (let i = 0; i < scenarios.length; i += 2) {
  results.push(...(await Promise.all(scenarios.slice(i, i + 2).map(run))));
}
for (const { scenario, dir, code, printed } of results) {
  const lines = report(dir, /^/);
  for (const line of lines) console.log(line.replace(/^scenario \S+/, `scenario ${scenario}`));
  if (lines.length === 0) console.log(`scenario ${scenario} FAIL no results`);
  console.log(`exit ${scenario} ${code}`);
  if (code !== 0 || process.env.CONFORMANCE_VERBOSE) console.log(printed.split('\n').map((l) => `  | ${l}`).join('\n'));
}
console.log('suite exit');
