// One line per scenario from the conformance suite's result folders (`<scenario>-<timestamp>/checks.json`
// under an output folder): `scenario NAME PASS|FAIL` with the count of checks per status and the
// failed checks' messages. Shared by conformance-run.mjs (server) and conformance-client-run.mjs.

import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

export function report(outputDir, prefix) {
  const folders = existsSync(outputDir) ? readdirSync(outputDir).filter((f) => existsSync(join(outputDir, f, 'checks.json'))) : [];
  const lines = [];
  for (const folder of folders.sort()) {
    const checks = JSON.parse(readFileSync(join(outputDir, folder, 'checks.json'), 'utf8'));
    const scenario = folder.replace(prefix, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    const counts = {};
    for (const check of checks) counts[check.status] = (counts[check.status] ?? 0) + 1;
    const failed = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    const tally = Object.entries(counts).map(([status, n]) => `${status.toLowerCase()}=${n}`).join(',');
    const detail = failed.map((c) => `${c.id}: ${(c.errorMessage ?? '').replace(/\s+/g, ' ').slice(0, 160)}`).join(' | ');
    lines.push(`scenario ${scenario} ${failed.length === 0 ? 'PASS' : 'FAIL'} ${tally}${detail ? ' — ' + detail : ''}`);
  }
  return lines;
}
