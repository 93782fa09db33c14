// In-browser benchmark and reload check: starts the real bridge serving a repository, opens the
// real UI in headless Chromium, and measures indexing, main-thread stalls, memory and reload.
//
// Usage: node tests/js/browser-bench.mjs --repo DIR [--ui DIST] [--bridge BIN] [--port N]
//        [--reloads N] [--synthetic N] [--chain N] [--picture] [--check]
//   --synthetic N  generate a repository of N Python files instead of --repo
//   --chain N      then time N calls per tool through the whole chain: MCP client (the official
//                  TypeScript SDK) → a second nexus-bridge on stdio (a peer) → hub → WebSocket →
//                  the tab's wasm engine → back
//   --http         with --chain, also time `context` and `search` over Streamable HTTP (the hub's
//                  /mcp with the bearer from the data folder) against stdio, calls interleaved
//   --trace FILE   with --chain, record a Chrome performance trace (CDP) of the search, context,
//                  explore and cypher calls into FILE and print, per tab thread, how much of that
//                  time its tasks held it and its longest task
//   --trace-grep FILE  with --chain, record a sampled CDP trace (V8's profiler too) of the three
//                  grep calls into FILE and print per tab thread its busy share and the functions
//                  on top of the stack most often
//   --trace-index FILE  record a CDP trace from page open until indexed into FILE and print, per
//                  tab thread, how much of that time its tasks held it, overall and per 10 s
//   --cpu-profile  with --trace-index, also sample every thread's JavaScript and WebAssembly
//                  (V8's sampling profiler in the trace) and print per thread the functions that
//                  took the most samples themselves
//   --picture      then time the graph picture: engine finished → first picture, frames per
//                  second while panning (mouse drag) and zooming (wheel), and a click on a node →
//                  selection drawn and details shown
//   --check        exit non-zero unless indexing, saving and restoring on reload all worked
//   --semantic Q   after indexing, wait for the tab's embeddings (semantic `search` is an error
//                  until they exist) and search by meaning for Q; with --check, Q must find code
//   --symbol NAME  the symbol the chain's impact, explore and grep calls and the picture's search
//                  name (default get_object_or_404, a Django function); --query Q the search
//   --stream-threshold N  the bridge's: above N files the repository streams in batches
//   --timeout-s N  how long indexing may take before the run fails (default 600)
//   --no-embed     do not wait for the tab's embeddings (a huge graph embeds for minutes)
//   --oversized    with --synthetic, add app/huge.py over the 1 MB cap; with --check, the page
//                  must name it as left out
//   --expect-batches  with --check, the repository must have streamed in batches
// Prints figures on stdout; the bridge's logs go to stderr.
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const flag = (name) => args.includes(`--${name}`);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const port = Number(opt("port", "54391"));
const ui = path.resolve(opt("ui", path.join(root, "dist")));
const bridge = path.resolve(opt("bridge", path.join(root, "target/release/nexus-bridge")));
const reloads = Number(opt("reloads", "3"));
const check = flag("check");
const chainCalls = Number(opt("chain", "0"));
const picture = flag("picture");
const overHttp = flag("http");
const traceFile = opt("trace", "");
const traceIndexFile = opt("trace-index", "");
const traceGrepFile = opt("trace-grep", "");
const cpuProfile = flag("cpu-profile");
const semanticQuery = opt("semantic", "");
const symbol = opt("symbol", "get_object_or_404");
const searchQuery = opt("query", "queryset filter");
const streamThreshold = opt("stream-threshold", "");
const indexTimeoutMs = Number(opt("timeout-s", "600")) * 1000;
const waitForEmbeddings = !flag("no-embed");
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nexus-browser-bench-"));

function fail(message) {
  console.error(`browser-bench: ${message}`);
  process.exitCode = 1;
}

/// N Python files in packages of 100 that import and call their neighbour.
function synthetic(n) {
  const dir = path.join(tmp, `synthetic-${n}`);
  for (let i = 0; i < n; i++) {
    const pkg = Math.floor(i / 100), mod = i % 100, next = (mod + 1) % 100;
    const folder = path.join(dir, "app", `pkg${pkg}`);
    if (mod === 0) {
      fs.mkdirSync(folder, { recursive: true });
      fs.writeFileSync(path.join(folder, "__init__.py"), "");
    }
    fs.writeFileSync(
      path.join(folder, `m${mod}.py`),
      `from .m${next} import entry_${next}\n\nclass Service${i}:\n    def run(self, x):\n        return self.step(x) + helper_${i}(x)\n\n    def step(self, x):\n        return entry_${next}(x)\n\ndef helper_${i}(x):\n    return x * 2\n\ndef entry_${mod}(x):\n    return Service${i}().run(x)\n`,
    );
  }
  if (flag("oversized")) fs.writeFileSync(path.join(dir, "app", "huge.py"), "x = 1\n".repeat(200_000));
  return dir;
}

/// Memory of this Chromium's processes (its profile folder is unique), in MB: all of them, and
/// the renderers alone (the tab with its workers). `pss` reads smaps_rollup, which walks every
/// mapping and holds the process's memory lock meanwhile (it stalls a tab with gigabytes
/// reserved for wasm), so while the tab works only `rss` (from statm, cheap) is sampled: RSS
/// counts shared pages in full, an upper bound of PSS.
function chromiumMemoryMb(profile, kind) {
  let kb = 0;
  let rendererKb = 0;
  const page = 4;
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!cmd.includes(profile)) continue;
      const value =
        kind === "pss"
          ? Number(fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8").match(/^Pss:\s+(\d+) kB/m)?.[1] ?? 0)
          : Number(fs.readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]) * page;
      kb += value;
      if (cmd.includes("--type=renderer")) rendererKb += value;
    } catch {
      // The process ended while being read.
    }
  }
  return { all: kb / 1024, tab: rendererKb / 1024 };
}

/// CPU seconds used so far, from /proc/PID/stat: by the tab's renderers (the page and its
/// workers), by Chromium's other processes of this profile (browser, GPU, network) and by the hub.
function cpuSeconds(profile, hubPid) {
  const ticksOf = (pid) => {
    // Fields after the command name (which may hold spaces): state is the 3rd, utime the 14th.
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return Number(fields[11]) + Number(fields[12]);
  };
  let tab = 0;
  let chromium = 0;
  let bridge = 0;
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (Number(pid) === hubPid) {
        bridge += ticksOf(pid);
        continue;
      }
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!cmd.includes(profile)) continue;
      if (cmd.includes("--type=renderer")) tab += ticksOf(pid);
      else chromium += ticksOf(pid);
    } catch {
      // The process ended while being read.
    }
  }
  return { tab: tab / 100, chromium: chromium / 100, bridge: bridge / 100 };
}

/// Seconds in which some task on the machine stalled for `resource` (cpu or memory), cumulative
/// (Linux pressure stall information; 0 where the kernel has none).
function stalledSeconds(resource) {
  try {
    const some = fs.readFileSync(`/proc/pressure/${resource}`, "utf8").match(/^some .*total=(\d+)/m);
    return Number(some?.[1] ?? 0) / 1e6;
  } catch {
    return 0;
  }
}

/// One line per indexing phase (as the status named it): when it started after page open, wall
/// time, CPU the tab used (a phase that waited for the machine's cores shows far less CPU than
/// wall time), CPU of Chromium's other processes and of the bridge, the tab's RSS peak, the
/// machine's CPU and memory stall time and load average meanwhile: load or memory pressure.
function phaseReport(phases, samples, startedMs, endMs) {
  for (let i = 0; i < phases.length; i++) {
    const from = phases[i].at, to = i + 1 < phases.length ? phases[i + 1].at : endMs;
    const at = `at ${((from - startedMs) / 1000).toFixed(1)} s`;
    const inside = samples.filter((s) => s.t >= from && s.t <= to);
    if (inside.length < 2) {
      console.log(`  phase ${phases[i].phase} ${at}: ${((to - from) / 1000).toFixed(1)} s (too short to sample)`);
      continue;
    }
    const first = inside[0], last = inside[inside.length - 1];
    const span = (last.t - first.t) / 1000;
    const used = (key) => last.cpu[key] - first.cpu[key];
    const rss = Math.max(...inside.map((s) => s.rss));
    console.log(
      `  phase ${phases[i].phase} ${at}: ${((to - from) / 1000).toFixed(1)} s; tab CPU ${used("tab").toFixed(1)} s in ${span.toFixed(1)} s sampled (${(used("tab") / span).toFixed(2)} cores);` +
        ` other Chromium ${used("chromium").toFixed(1)} s, bridge ${used("bridge").toFixed(1)} s;` +
        ` tab RSS peak ${rss.toFixed(0)} MB; machine stalls: CPU ${(last.cpuStall - first.cpuStall).toFixed(1)} s, memory ${(last.memStall - first.memStall).toFixed(1)} s; load ${last.load}`,
    );
  }
}

/// The tab's peak PSS, estimated without reading smaps while it works: private pages count the
/// same in RSS and PSS, so the PSS after plus the RSS peak's excess over the RSS after.
function pssPeak(pssAfter, rssAfter, rssPeak) {
  return pssAfter.tab + Math.max(0, rssPeak.tab - rssAfter.tab);
}

/// Where the tab renderers' memory is: the largest mappings (wasm memories are single
/// read-write mappings as large as the memory; it never shrinks), PSS in MB, and the rest.
function rendererBreakdown(profile) {
  const maps = [];
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!cmd.includes(profile) || !cmd.includes("--type=renderer")) continue;
      let size = 0;
      for (const line of fs.readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
        const range = line.match(/^([0-9a-f]+)-([0-9a-f]+) /);
        if (range) size = (parseInt(range[2], 16) - parseInt(range[1], 16)) / 2 ** 20;
        const pss = line.match(/^Pss:\s+(\d+) kB/);
        if (pss) maps.push({ size, pss: Number(pss[1]) / 1024 });
      }
    } catch {
      // The process ended while being read.
    }
  }
  maps.sort((a, b) => b.pss - a.pss);
  const top = maps.slice(0, 6);
  const rest = maps.slice(6).reduce((sum, m) => sum + m.pss, 0);
  return `largest mappings ${top.map((m) => `${m.pss.toFixed(0)} of ${m.size.toFixed(0)}`).join(", ")} MB; the rest ${rest.toFixed(0)} MB`;
}

/// The browser's secret the hub keeps beside its token file ("" until the hub wrote it).
function secret() {
  try {
    return fs.readFileSync(path.join(tmp, "nexus", "browser-token"), "utf8").trim();
  } catch {
    return "";
  }
}

async function waitForPort(deadline) {
  while (Date.now() < deadline) {
    try {
      // `/api/*` needs the api token a tab gets once it proved the secret: 401 says the hub is up.
      const r = await fetch(`http://127.0.0.1:${port}/api/repo`);
      if (r.status === 401 && secret()) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the bridge did not answer on port ${port}`);
}

/// An MCP client on its own bridge (a peer of the hub the page uses).
async function connectAgent() {
  const client = new Client({ name: "nexus-browser-bench", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: bridge,
      args: ["--port", String(port)],
      env: { ...process.env, XDG_RUNTIME_DIR: tmp },
      stderr: "ignore",
    }),
  );
  return client;
}

/// Frames per second the picture draws over `ms` while, at every animation frame, the page gets
/// one input event (a 60 Hz pointer or wheel, as from a real mouse): pan by dragging, or zoom.
async function framesPerSecond(page, ms, kind) {
  return page.evaluate(
    ([ms, kind]) =>
      new Promise((resolve) => {
        const canvas = document.querySelector('[data-testid="graph-canvas"]');
        const box = canvas.getBoundingClientRect();
        const [cx, cy] = [box.left + box.width / 2, box.top + box.height / 2];
        const g = window.__nexusGraph;
        const frames0 = g.frames;
        const start = performance.now();
        let events = 0;
        let slowest = 0;
        let last = start;
        const pointer = (type, x, y) =>
          canvas.dispatchEvent(new PointerEvent(type, { pointerId: 1, button: 0, buttons: 1, clientX: x, clientY: y, bubbles: true, cancelable: true }));
        if (kind === "pan") pointer("pointerdown", cx, cy);
        const step = (now) => {
          slowest = Math.max(slowest, now - last);
          last = now;
          const t = (now - start) / 1000;
          if (kind === "pan") pointer("pointermove", cx + 150 * Math.sin(t * 4), cy + 100 * Math.cos(t * 3));
          else canvas.dispatchEvent(new WheelEvent("wheel", { clientX: cx, clientY: cy, deltaY: Math.floor(t) % 2 ? 40 : -40, bubbles: true, cancelable: true }));
          events++;
          if (now - start < ms) return requestAnimationFrame(step);
          if (kind === "pan") pointer("pointerup", cx, cy);
          const elapsed = performance.now() - start;
          resolve({ fps: ((g.frames - frames0) * 1000) / elapsed, events, slowest, frameMs: g.frameMs });
        };
        requestAnimationFrame(step);
      }),
    [ms, kind],
  );
}

/// The graph picture: time to the first picture, panning and zooming rates, click → details.
async function pictureBench(page) {
  await page.waitForFunction(() => window.__nexusGraph && window.__nexusGraph.firstPictureMs > 0, null, { timeout: 120_000 });
  const t = await page.evaluate(() => ({
    indexed: window.__nexusIndexedAt,
    view: window.__nexusGraph.viewSetMs,
    first: window.__nexusGraph.firstPictureMs,
    layout: Number(document.querySelector('[data-testid="stage"]').dataset.pictureMs),
    nodes: Number(document.querySelector('[data-testid="graph-view"]').dataset.nodes),
  }));
  console.log(
    `picture: ${t.nodes} nodes; layout ${t.layout} ms in the worker; engine finished → first picture ${(t.first - t.indexed).toFixed(0)} ms (view in the page → drawn ${(t.first - t.view).toFixed(0)} ms)`,
  );
  for (const kind of ["pan", "zoom"]) {
    const r = await framesPerSecond(page, 3000, kind);
    console.log(
      `${kind === "pan" ? "panning" : "zooming"}: ${r.fps.toFixed(1)} frames/s drawn, ${r.events} input events (one per animation frame), slowest frame interval ${r.slowest.toFixed(0)} ms`,
    );
  }
  // The camera flies to a searched symbol; after Esc clears the selection, a click selects it.
  await page.keyboard.press("/");
  await page.keyboard.type(symbol);
  await page.waitForSelector('[data-testid="search-hits"] li a', { timeout: 10_000 });
  await page.keyboard.press("Enter");
  // A huge graph's picture draws only its most connected symbols: one left out is not selected there.
  const drawn = await page
    .waitForFunction(() => window.__nexusGraph.selectedId, null, { timeout: 10_000 })
    .then(() => true, () => false);
  if (!drawn) {
    await page.keyboard.press("Escape");
    return console.log(`select: ${symbol} is not among the picture's drawn nodes (no click timed)`);
  }
  const clickId = await page.evaluate(() => window.__nexusGraph.selectedId);
  await page.waitForTimeout(1500);
  await page.keyboard.press("Escape");
  await page.waitForTimeout(300);
  const at = await page.evaluate((i) => window.__nexusGraph.screenPosition(i), clickId);
  if (!at) return console.log("select: no node to click");
  await page.evaluate(() => {
    document.querySelector('[data-testid="graph-canvas"]').addEventListener("pointerdown", () => (window.__nexusClickAt = performance.now()), { capture: true, once: true });
  });
  await page.mouse.click(at[0], at[1]);
  await page.waitForFunction(() => window.__nexusGraph.selectionDrawnMs > window.__nexusClickAt, null, { timeout: 10_000 });
  await page.waitForFunction(() => document.querySelector('[data-testid="details"]').dataset.ms && document.querySelector('[data-testid="details-callers"]'), null, { timeout: 10_000 });
  const sel = await page.evaluate(() => ({
    drawn: window.__nexusGraph.selectionDrawnMs - window.__nexusClickAt,
    details: Number(document.querySelector('[data-testid="details"]').dataset.ms),
    name: document.querySelector('[data-testid="details-name"]').textContent,
  }));
  console.log(`select ${sel.name}: click → selection drawn ${sel.drawn.toFixed(1)} ms; selection → details shown ${sel.details.toFixed(1)} ms`);
}

/// Index the same repository again: the snapshot it replaces becomes the previous one, `diff`
/// finds no change, and after a reload the restored graph still has that baseline.
async function checkReindexAndDiff(page) {
  await page.evaluate(() => delete window.__nexusEmbedded);
  await page.locator('[data-testid="open-bridge-repo"]').click();
  await waitForStatus(page, /^Indexed .* saved to browser storage/, 120_000);
  const vectors = await embeddedReport(page);
  console.log(`re-indexed: ${vectors.reused} of ${vectors.nodes} vectors reused (text unchanged), ${vectors.ms.toFixed(0)} ms`);
  if (vectors.nodes === 0 || vectors.reused !== vectors.nodes) fail(`re-indexing the same files embedded again: ${JSON.stringify(vectors)}`);
  const agent = await connectAgent();
  const diffText = async () => {
    const result = await agent.callTool({ name: "diff", arguments: {} });
    return result.content.map((c) => c.text).join("");
  };
  const before = await diffText();
  await page.reload();
  await waitForStatus(page, /^Restored from browser storage/, 60_000);
  let after = "";
  for (let i = 0; i < 50 && !/No change/.test(after); i++) {
    after = await diffText();
    await new Promise((r) => setTimeout(r, 100));
  }
  await agent.close();
  console.log(`diff after re-indexing: ${before.split("\n").slice(0, 2).join(" / ")}`);
  if (!/No change/.test(before)) fail(`diff after re-indexing the same files: ${before}`);
  if (!/No change/.test(after)) fail(`diff after reload lost its baseline: ${after}`);
}

/// The worker's last embedding run (`window.__nexusEmbedded`), once it ended and its vectors were saved.
/// With `saved`, waits for a run whose vectors were saved (not the built-in sample's, shown first).
async function embeddedReport(page, saved = false) {
  const report = await page.waitForFunction(
    (saved) => window.__nexusEmbedded && (!saved || window.__nexusEmbedded.bytes > 0) && window.__nexusEmbedded,
    saved,
    { timeout: 120_000, polling: 50 },
  );
  return report.jsonValue();
}

/// Search by meaning in the tab: semantic `search` is an error until the worker's embeddings
/// exist; prints when they answered (after indexing) and the first hits for `query`.
async function semanticCheck(query) {
  const agent = await connectAgent();
  const started = Date.now();
  let result;
  for (;;) {
    result = await agent.callTool({ name: "search", arguments: { query, mode: "semantic", format: "json" } });
    if (!result.isError) break;
    if (Date.now() - started > 120_000) throw new Error(`no embeddings after 120 s: ${JSON.stringify(result.content)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await agent.close();
  const found = JSON.parse(result.content.map((c) => c.text).join(""));
  const names = found.hits.slice(0, 3).map((h) => h.id);
  console.log(`embeddings: semantic search answered ${Date.now() - started} ms after indexing; "${query}" → ${names.join(", ")} (${found.ms} ms in the tab)`);
  if (check && names.length === 0) fail(`semantic search for "${query}" found nothing`);
}

/// Milliseconds from `started` until an agent's `search` for the symbol is answered from the
/// indexed repository (not the sample shown first): the old graph answers meanwhile.
let indexedAtMs = 0;
async function waitForAnswers(started) {
  const agent = await connectAgent();
  try {
    for (;;) {
      const result = await agent.callTool({ name: "search", arguments: { query: symbol, format: "json" } });
      const text = result.content.map((c) => c.text).join("");
      let hits = [];
      try {
        hits = JSON.parse(text).hits ?? [];
      } catch {
        // Not an answer from a graph yet.
      }
      if (!result.isError && hits.some((h) => String(h.id).endsWith(`:${symbol}`))) return Date.now() - started;
      if (Date.now() - started > indexTimeoutMs || (indexedAtMs && Date.now() - indexedAtMs > 10_000)) return NaN;
      await new Promise((r) => setTimeout(r, 250));
    }
  } catch (err) {
    console.error(`browser-bench: waiting for answers: ${err.message}`);
    return NaN;
  } finally {
    await agent.close();
  }
}

/// p50 and p99 of each tool's latency through the whole chain, with an agent's own bridge.
async function chainBench(n, page) {
  const client = await connectAgent();
  // Work the tab still does in the background (embedding, layers) shares its threads with calls.
  const progress = await page.locator('[data-testid="progress"] span').innerText({ timeout: 1000 }).catch(() => "");
  console.log(`chain: the tab's progress when it starts: ${progress || "(none)"}`);
  const tracing = traceFile ? await startTrace(page) : null;
  const calls = {
    search: { query: searchQuery },
    context: {},
    explore: { name: symbol },
    cypher: { query: `MATCH (a)-[:CALLS]->(b {name: '${symbol}'}) RETURN a.name LIMIT 20` },
    impact: { target: symbol, max_depth: 3 },
    grep: { pattern: "TODO" },
    "grep ident": { pattern: symbol, limit: 20 },
    "grep regex": { pattern: "def \\w+_view\\(", limit: 20 },
  };
  console.log(`chain: MCP SDK client → nexus-bridge (peer, stdio) → hub → WebSocket → wasm → back; ${n} calls each`);
  let grepTracing = null;
  for (const [tool, args] of Object.entries(calls)) {
    if (traceGrepFile && tool === "grep") grepTracing = await startTrace(page, false, true);
    const times = [];
    for (let i = 0; i < n + 5; i++) {
      const t = performance.now();
      const result = await client.callTool({ name: tool.split(" ")[0], arguments: args });
      const ms = performance.now() - t;
      if (result.isError) throw new Error(`${tool}: ${JSON.stringify(result.content)}`);
      if (i >= 5) times.push(ms);
    }
    times.sort((a, b) => a - b);
    const at = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(2);
    console.log(`  ${tool.padEnd(11)} p50 ${at(0.5)} ms  p99 ${at(0.99)} ms`);
    if (tracing && tool === "cypher") await endTrace(tracing, traceFile);
    if (grepTracing && tool === "grep regex") await endTrace(grepTracing, traceGrepFile);
  }
  await client.close();
}

/// Starts a CDP trace of the tab's threads (tasks and the script they ran; with `light`, the
/// tasks alone, which costs the traced threads little over minutes of indexing; with `sampled`,
/// V8's sampling profiler too).
async function startTrace(page, light = false, sampled = false) {
  const cdp = await page.context().newCDPSession(page);
  const categories = light ? ["toplevel"] : ["toplevel", "devtools.timeline", "disabled-by-default-devtools.timeline", "v8.execute"];
  if (sampled) categories.push("v8", "disabled-by-default-v8.cpu_profiler");
  await cdp.send("Tracing.start", {
    transferMode: "ReturnAsStream",
    traceConfig: { includedCategories: categories },
  });
  return { cdp, startedMs: Date.now() };
}

/// Ends the trace, writes it to `file` and prints per thread the share of the traced wall time
/// its top-level tasks held it and its longest one; with `windowMs`, also that share per window
/// of that length for the busiest threads (which thread sits idle when).
async function endTrace({ cdp, startedMs }, file, windowMs = 0) {
  const complete = new Promise((resolve) => cdp.once("Tracing.tracingComplete", resolve));
  await cdp.send("Tracing.end");
  const { stream } = await complete;
  let text = "";
  for (;;) {
    const chunk = await cdp.send("IO.read", { handle: stream, size: 1 << 20 });
    text += chunk.base64Encoded ? Buffer.from(chunk.data, "base64").toString() : chunk.data;
    if (chunk.eof) break;
  }
  await cdp.send("IO.close", { handle: stream });
  fs.writeFileSync(file, text);
  const events = JSON.parse(text).traceEvents ?? [];
  const names = new Map(events.filter((e) => e.name === "thread_name").map((e) => [`${e.pid}:${e.tid}`, e.args.name]));
  // The first task's start (a loop: the events are too many to spread into arguments).
  let startedTs = Infinity;
  for (const e of events) if (e.ph === "X" && e.ts > 0 && e.ts < startedTs) startedTs = e.ts;
  const threads = new Map();
  for (const e of events) {
    if (e.ph !== "X" || e.name !== "ThreadControllerImpl::RunTask" || !e.dur) continue;
    const key = `${e.pid}:${e.tid}`;
    const t = threads.get(key) ?? { busyUs: 0, longestUs: 0, tasks: 0, windows: [] };
    t.busyUs += e.dur;
    if (windowMs) {
      // A task's time goes to the windows it spans.
      for (let at = e.ts; at < e.ts + e.dur; ) {
        const w = Math.floor((at / 1000 - startedTs / 1000) / windowMs);
        const end = Math.min(e.ts + e.dur, startedTs + (w + 1) * windowMs * 1000);
        t.windows[w] = (t.windows[w] ?? 0) + (end - at);
        at = end;
      }
    }
    t.longestUs = Math.max(t.longestUs, e.dur);
    t.tasks += 1;
    threads.set(key, t);
  }
  const wallMs = Date.now() - startedMs;
  console.log(`trace: ${file} (${(text.length / 1e6).toFixed(1)} MB, ${(wallMs / 1000).toFixed(1)} s); per thread, tasks' share of that time:`);
  const busiest = [...threads.entries()].sort((a, b) => b[1].busyUs - a[1].busyUs).slice(0, 6);
  for (const [key, t] of busiest) {
    const name = names.get(key) ?? key;
    console.log(`  ${name.padEnd(24)} ${((100 * t.busyUs) / 1000 / wallMs).toFixed(0)} % busy, ${t.tasks} tasks, longest ${(t.longestUs / 1000).toFixed(1)} ms`);
    if (windowMs) {
      const shares = Array.from(t.windows, (us) => ((100 * (us ?? 0)) / 1000 / windowMs).toFixed(0).padStart(3));
      console.log(`    per ${windowMs / 1000} s (%): ${shares.join(" ")}`);
    }
  }
  printSelfSamples(events, names);
}

/// From the sampling profiler's chunks in a trace (if it ran): per thread, the functions that
/// were on top of the stack in the most samples, with their share of that thread's samples.
function printSelfSamples(events, names) {
  const profiles = new Map();
  for (const e of events) {
    if (e.name !== "ProfileChunk" && e.name !== "Profile") continue;
    const key = `${e.pid}:${e.tid}`;
    const p = profiles.get(key) ?? { frames: new Map(), counts: new Map(), total: 0 };
    const profile = e.args?.data?.cpuProfile;
    for (const node of profile?.nodes ?? []) {
      const frame = node.callFrame ?? {};
      p.frames.set(node.id, frame.functionName || `(${frame.url ? frame.url.split("/").pop() : "program"})`);
    }
    for (const id of profile?.samples ?? []) {
      p.counts.set(id, (p.counts.get(id) ?? 0) + 1);
      p.total += 1;
    }
    profiles.set(key, p);
  }
  const sampled = [...profiles.entries()].filter(([, p]) => p.total > 0).sort((a, b) => b[1].total - a[1].total);
  if (!sampled.length) return;
  console.log("cpu profile: per thread, samples and the functions on top of the stack most often:");
  for (const [key, p] of sampled.slice(0, 6)) {
    const byName = new Map();
    for (const [id, n] of p.counts) {
      const name = p.frames.get(id) ?? "(unknown)";
      byName.set(name, (byName.get(name) ?? 0) + n);
    }
    console.log(`  ${(names.get(key) ?? key).padEnd(24)} ${p.total} samples`);
    for (const [name, n] of [...byName.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
      console.log(`    ${((100 * n) / p.total).toFixed(1).padStart(5)} %  ${name.slice(0, 110)}`);
    }
  }
}

/// An agent over Streamable HTTP: the hub's /mcp with the user's bearer token (the bench's own
/// data folder holds it).
async function connectHttpAgent() {
  const token = fs.readFileSync(path.join(tmp, "nexus", "mcp-token"), "utf8").trim();
  const client = new Client({ name: "nexus-browser-bench-http", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/// p50 and p99 of `context` and `search` over stdio (a peer bridge) and over HTTP, each call
/// of one followed by the same call of the other, so both see the same machine.
async function transportBench(n) {
  const [stdio, http] = [await connectAgent(), await connectHttpAgent()];
  console.log(`transports: stdio (peer bridge) vs Streamable HTTP (/mcp), ${n} calls each, interleaved`);
  const at = (times, p) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
  for (const [tool, args] of [["context", {}], ["search", { query: searchQuery }]]) {
    const times = { stdio: [], http: [] };
    for (let i = 0; i < n + 5; i++) {
      for (const [name, client] of [["stdio", stdio], ["http", http]]) {
        const t = performance.now();
        const result = await client.callTool({ name: tool, arguments: args });
        const ms = performance.now() - t;
        if (result.isError) throw new Error(`${tool} over ${name}: ${JSON.stringify(result.content)}`);
        if (i >= 5) times[name].push(ms);
      }
    }
    for (const list of Object.values(times)) list.sort((a, b) => a - b);
    const line = (name) => `${name} p50 ${at(times[name], 0.5).toFixed(2)} ms p99 ${at(times[name], 0.99).toFixed(2)} ms`;
    const added = at(times.http, 0.5) - at(times.stdio, 0.5);
    console.log(`  ${tool.padEnd(8)} ${line("stdio")} · ${line("http")} · HTTP adds ${added.toFixed(2)} ms p50`);
  }
  await stdio.close();
  await http.close();
}

const statusText = (page) => page.locator('[data-testid="load-status"]').innerText();

async function waitForStatus(page, pattern, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await statusText(page);
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) {
      const progress = await page.locator('[data-testid="progress"] span').innerText().catch(() => "");
      throw new Error(`timed out waiting for ${pattern}; status: ${text}; progress: ${progress}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

const repo = flag("synthetic") ? synthetic(Number(opt("synthetic", "50000"))) : opt("repo");
if (!repo) {
  console.error("usage: browser-bench.mjs --repo DIR | --synthetic N [--check]");
  process.exit(2);
}
for (const [what, p] of [["UI folder", path.join(ui, "index.html")], ["bridge", bridge]]) {
  if (!fs.existsSync(p)) {
    console.error(`browser-bench: ${what} missing: ${p}`);
    process.exit(2);
  }
}

const hubArgs = ["serve", "--port", String(port), "--repo", repo];
if (streamThreshold) hubArgs.push("--stream-threshold", streamThreshold);
const hub = spawn(bridge, hubArgs, {
  env: {
    ...process.env,
    NEXUS_UI_DIR: ui,
    XDG_RUNTIME_DIR: tmp,
    // Over HTTP the bench reads the bearer from the hub's data folder: its own, not the user's.
    ...(overHttp ? { XDG_DATA_HOME: tmp } : {}),
  },
  stdio: ["ignore", "ignore", "inherit"],
});
const profile = path.join(tmp, "profile");
let context;
// The per-phase report, also printed when indexing fails or times out.
let reportPhases;
try {
  await waitForPort(Date.now() + 20_000);
  context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--use-gl=angle",
      "--use-angle=swiftshader",
      "--enable-unsafe-swiftshader",
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on("pageerror", (err) => console.error(`page error ${new Date().toISOString()}: ${err.stack ?? err.message}`));
  page.on("worker", (worker) => console.error(`worker started: ${worker.url()}`));
  page.on("console", (msg) => msg.type() === "error" && console.error(`page console: ${msg.text()}`));
  // A probe in the page: the longest gap between animation frames while indexing runs.
  await page.addInitScript(() => {
    // Trunk's start event carries the page's wasm exports, its memory among them.
    addEventListener("TrunkApplicationStarted", (e) => (window.__nexusPageWasm = e.detail.wasm));
    window.__nexusLongestFrameGap = 0;
    let last = performance.now();
    const tick = (now) => {
      window.__nexusLongestFrameGap = Math.max(window.__nexusLongestFrameGap, now - last);
      last = now;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    // When the engine reported the end of indexing (the status turns to "Indexed …").
    new MutationObserver(() => {
      const status = document.querySelector('[data-testid="load-status"]')?.textContent || "";
      // Each phase the progress names ("parse 120 / 900 · …", "resolve… 3.0 s"), with its start;
      // from "Indexed …" on, saving.
      const phases = (window.__nexusPhases ??= []);
      const progress = document.querySelector('[data-testid="progress"] span')?.textContent || "";
      const phase = /^Indexed /.test(status) ? "indexed → saved" : progress.match(/^(.*?)(?:…| \d)/)?.[1];
      if (/^Indexed /.test(status) && !window.__nexusIndexedAt) window.__nexusIndexedAt = performance.now();
      if (phase && phases[phases.length - 1]?.phase !== phase && phases[phases.length - 1]?.phase !== "indexed → saved") {
        phases.push({ phase, at: performance.timeOrigin + performance.now() });
      }
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  let peak = { all: 0, tab: 0 };
  const samples = [];
  const sampler = setInterval(() => {
    const now = chromiumMemoryMb(profile, "rss");
    peak.all = Math.max(peak.all, now.all);
    peak.tab = Math.max(peak.tab, now.tab);
    if (!indexedAtMs) {
      samples.push({
        t: Date.now(),
        rss: now.tab,
        cpu: cpuSeconds(profile, hub.pid),
        cpuStall: stalledSeconds("cpu"),
        memStall: stalledSeconds("memory"),
        load: fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0],
      });
    }
  }, 500);
  reportPhases = async () => {
    console.log("per phase (the tab's CPU against wall time tells waiting for cores from work):");
    phaseReport(await page.evaluate(() => window.__nexusPhases ?? []), samples, started, indexedAtMs || Date.now());
  };
  const indexTracing = traceIndexFile ? await startTrace(page, true, cpuProfile) : null;
  const started = Date.now();
  await page.goto(`http://127.0.0.1:${port}/?token=${secret()}`);
  const answering = opt("symbol") ? waitForAnswers(started) : Promise.resolve(NaN);
  const indexed = await waitForStatus(page, /^Indexed .* saved to browser storage|not saved/, indexTimeoutMs);
  const wallMs = Date.now() - started;
  indexedAtMs = Date.now();
  if (indexTracing) await endTrace(indexTracing, traceIndexFile, 10_000);
  const answeredMs = await answering;
  const gap = await page.evaluate(() => window.__nexusLongestFrameGap);
  const summary = await page.locator('[data-testid="summary"]').innerText();
  const settled = chromiumMemoryMb(profile, "pss");
  const settledRss = chromiumMemoryMb(profile, "rss");
  console.log(`== ${path.basename(repo)} in headless Chromium`);
  console.log(`graph: ${summary}`);
  console.log(`worker: ${indexed}`);
  if (opt("symbol")) console.log(`page open → the new graph answers an agent's search for ${symbol}: ${answeredMs} ms`);
  console.log(`page open → indexed and saved: ${wallMs} ms (wasm start, download, unzip, pipeline, save)`);
  const leftOut = await page.evaluate(() => window.__nexusLeftOut ?? []);
  const reasons = {};
  for (const f of leftOut) (reasons[f.why] ??= []).push(f.path);
  console.log(
    `files left out: ${leftOut.length}` +
      Object.entries(reasons).map(([why, paths]) => `; ${paths.length} ${why} (${paths.slice(0, 3).join(", ")}${paths.length > 3 ? ", …" : ""})`).join(""),
  );
  if (check && flag("oversized") && !leftOut.some((f) => f.path === "app/huge.py" && /larger than/.test(f.why))) fail(`app/huge.py not named as left out: ${JSON.stringify(leftOut)}`);
  if (check && flag("oversized") && !/left out \(1 larger than the 1 MB file size cap: app\/huge\.py\)/.test(indexed)) fail(`the status does not name app/huge.py: ${indexed}`);
  if (check && flag("expect-batches") && !/transfer and parse of \d+ batches/.test(indexed)) fail(`not streamed in batches: ${indexed}`);
  await reportPhases();
  console.log(`longest main-thread frame gap while indexing: ${gap.toFixed(0)} ms`);
  console.log(
    `memory (PSS): tab renderer peak ${pssPeak(settled, settledRss, peak).toFixed(0)} MB, after indexing ${settled.tab.toFixed(0)} MB (peak = PSS after + how far RSS, sampled every 0.5 s, rose above its value after)`,
  );
  const pageWasmMb = await page.evaluate(() => (window.__nexusPageWasm?.memory?.buffer.byteLength ?? 0) / 2 ** 20);
  console.log(`  the tab after indexing: ${rendererBreakdown(profile)}; the page's wasm memory ${pageWasmMb.toFixed(0)} MB`);
  if (check && !/saved to browser storage/.test(indexed)) fail(`not saved: ${indexed}`);

  if (semanticQuery) await semanticCheck(semanticQuery);
  const savedBytes = Number((indexed.match(/saved to browser storage \((\d+(?:\.\d+)?) MB/) ?? [])[1] ?? 0);
  const embedded = waitForEmbeddings ? await embeddedReport(page, true) : { nodes: 0, bytes: 0, ms: 0, source: "(not waited for)" };
  console.log(
    `vectors: ${embedded.nodes} embedded by ${embedded.source} in ${embedded.ms.toFixed(0)} ms, saved beside the snapshot: ${(embedded.bytes / 1e6).toFixed(2)} MB` +
      (savedBytes ? ` (+${((100 * embedded.bytes) / 1e6 / savedBytes).toFixed(0)} % on the ${savedBytes} MB snapshot)` : ""),
  );
  if (picture) await pictureBench(page);
  peak = { all: 0, tab: 0 };
  const restoreTimes = [];
  for (let i = 0; i < reloads; i++) {
    const t = Date.now();
    await page.reload();
    const restored = await waitForStatus(page, /^Restored from browser storage in (\d+) ms/, 60_000);
    const reloadWall = Date.now() - t;
    const workerMs = Number(restored.match(/in (\d+) ms/)[1]);
    restoreTimes.push(workerMs);
    console.log(`reload ${i + 1}: restored in ${workerMs} ms in the worker; page reload → restored ${reloadWall} ms`);
    if (!waitForEmbeddings) continue;
    const vectors = await embeddedReport(page);
    console.log(`reload ${i + 1}: vectors by ${vectors.source} ${vectors.restored ? "restored with the snapshot" : "embedded again"} (${vectors.nodes} nodes, ${vectors.reused} reused) in ${vectors.ms.toFixed(0)} ms`);
    if (check && embedded.nodes > 0 && !(vectors.restored && vectors.nodes === embedded.nodes)) fail(`vectors not restored on reload: ${JSON.stringify(vectors)}`);
    const again = await page.locator('[data-testid="summary"]').innerText();
    if (check && again !== summary) fail(`restored graph differs: ${again} vs ${summary}`);
  }
  clearInterval(sampler);
  if (restoreTimes.length) {
    restoreTimes.sort((a, b) => a - b);
    console.log(`reload median: ${restoreTimes[Math.floor(restoreTimes.length / 2)]} ms`);
    const after = chromiumMemoryMb(profile, "pss");
    const afterRss = chromiumMemoryMb(profile, "rss");
    console.log(`memory (PSS) while reloading: tab renderer peak ${pssPeak(after, afterRss, peak).toFixed(0)} MB, after ${after.tab.toFixed(0)} MB`);
  }
  if (check) await checkReindexAndDiff(page);
  if (chainCalls > 0) await chainBench(chainCalls, page);
  if (chainCalls > 0 && overHttp) await transportBench(chainCalls);
} catch (err) {
  fail(err.message);
  if (reportPhases && !indexedAtMs) await reportPhases().catch((e) => console.error(`no phase report: ${e.message}`));
} finally {
  if (context) await context.close();
  hub.kill();
  fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
}
