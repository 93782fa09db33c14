// UI test: the real bridge serves examples/sample-shop and the built UI; headless Chromium loads it
// through the page, and the test walks the UI as a person would — search, graph click, details,
// code view, Cypher console (result and inline error), a process followed step by step, the ask
// box, an agent's call lighting up in the activity feed — taking screenshots it checks are not
// blank. Usage: node ui-test.mjs --bridge BIN --ui DIST --repo DIR --port N --shots DIR
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith("--") ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []),
);
const port = Number(args.port || 54392);
const shots = args.shots || "target/ui-screenshots";
fs.mkdirSync(shots, { recursive: true });
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
// The hub and the agent's bridge find each other's token file here, apart from other runs.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nexus-ui-test-"));

function fail(message) {
  throw new Error(message);
}

async function check(name, fn) {
  const started = Date.now();
  await fn();
  console.log(`ok  ${name} (${Date.now() - started} ms)`);
}

/// Saves a screenshot and fails when it is blank: it must have many distinct colours.
async function screenshot(page, name) {
  const file = path.join(shots, `${name}.png`);
  const png = await page.screenshot({ path: file });
  const colours = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const canvas = document.createElement("canvas");
    canvas.width = img.width;
    canvas.height = img.height;
    const ctx = canvas.getContext("2d");
    ctx.drawImage(img, 0, 0);
    const data = ctx.getImageData(0, 0, img.width, img.height).data;
    const seen = new Set();
    for (let i = 0; i < data.length; i += 4 * 7) seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    return seen.size;
  }, png.toString("base64"));
  if (colours < 50) fail(`screenshot ${name} looks blank (${colours} colours)`);
  console.log(`    screenshot ${file} (${colours} colours)`);
}

async function text(page, testid) {
  return (await page.locator(`[data-testid="${testid}"]`).first().textContent()) || "";
}

const bridge = spawn(args.bridge, ["serve", "--port", String(port), "--repo", args.repo], {
  env: { ...process.env, NEXUS_UI_DIR: args.ui, XDG_RUNTIME_DIR: tmp },
  stdio: ["ignore", "ignore", "pipe"],
});
let bridgeLog = "";
bridge.stderr.on("data", (d) => (bridgeLog += d));
const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: ["--no-sandbox", "--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"],
});
try {
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/api/bridge`);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, colorScheme: "dark" });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  // The link the bridge prints: the page keeps its secret and drops it from the address.
  const secret = fs.readFileSync(path.join(tmp, "nexus", "browser-token"), "utf8").trim();
  await page.goto(`http://127.0.0.1:${port}/?token=${secret}`);

  await check("the bridge repository is indexed through the page", async () => {
    await page.waitForFunction(() => /^Indexed \d+ files/.test(document.querySelector('[data-testid="load-status"]')?.textContent || ""), null, { timeout: 60_000 });
    const summary = await text(page, "summary");
    if (!/sample-shop · 6 files · \d+ nodes · \d+ edges · [1-9]\d* communit(y|ies)( \(\+ [^)]*\))? · [1-9]\d* process(es)?/.test(summary)) fail(`summary: ${summary}`);
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="graph-view"]')?.dataset.nodes) > 0, null, { timeout: 30_000 });
    await page.waitForFunction(() => window.__nexusGraph && window.__nexusGraph.firstPictureMs > 0, null, { timeout: 30_000 });
    const files = await page.locator('[data-testid="files"] a.file').count();
    if (files !== 6) fail(`file tree lists ${files} files`);
  });
  await screenshot(page, "1-loaded-dark");

  await check("search finds a method and Enter selects it", async () => {
    await page.keyboard.press("/");
    const focused = await page.evaluate(() => document.activeElement?.dataset?.testid);
    if (focused !== "search") fail(`'/' focused ${focused}`);
    await page.keyboard.type("checkout");
    // The hits follow the keystrokes (an answer to "ch" may show while "checkout" is asked):
    // what counts is the list once the last keystroke is answered.
    await page
      .waitForFunction(() => /checkout/.test(document.querySelector('[data-testid="search-hits"] li a')?.textContent || ""), null, { timeout: 10_000 })
      .catch(async () => fail(`first hit: ${await page.locator('[data-testid="search-hits"] li a').first().textContent()}`));
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelector('[data-testid="details-name"]')?.textContent === "checkout");
    await page.waitForSelector('[data-testid="details-callers"]');
    const callees = await text(page, "details-callees");
    if (!/Callees \([1-9]/.test(callees)) fail(`callees: ${callees}`);
    if (!decodeURIComponent(await page.evaluate(() => location.hash)).includes("Method:shop/cart.py:Cart.checkout")) fail("the URL hash does not name the selection");
  });
  await screenshot(page, "2-selected");

  await check("clicking a node in the graph shows its details", async () => {
    const id = "Function:shop/payment.py:charge";
    const at = await page.evaluate((id) => window.__nexusGraph.screenPosition(id), id);
    if (!at) fail(`${id} has no screen position`);
    await page.mouse.click(at[0], at[1]);
    await page.waitForFunction(() => document.querySelector('[data-testid="details-name"]')?.textContent === "charge", null, { timeout: 5_000 });
    await page.waitForSelector('[data-testid="details-impact"]');
    const ms = Number(await page.locator('[data-testid="details"]').getAttribute("data-ms"));
    console.log(`    details shown ${ms.toFixed(1)} ms after the click`);
  });

  await check("the code view opens the symbol's lines with colours and numbers", async () => {
    await page.click('[data-testid="details-location"]');
    await page.waitForSelector('[data-testid="code"] .line.marked');
    if ((await text(page, "code-path")) !== "shop/payment.py") fail(`code path: ${await text(page, "code-path")}`);
    const marked = await page.locator('[data-testid="code"] .line.marked').first().textContent();
    if (!/def charge/.test(marked)) fail(`marked line: ${marked}`);
    if ((await page.locator('[data-testid="code"] .tok-kw').count()) === 0) fail("no keyword is coloured");
  });
  await screenshot(page, "3-code");

  await check("the Cypher console shows a table, and errors inline", async () => {
    await page.click('[data-testid="tab-cypher"]');
    await page.fill('[data-testid="cypher-query"]', "MATCH (a)-[:CALLS]->(b) WHERE b.name = 'charge' RETURN a.id AS id, b.name AS callee");
    await page.click('[data-testid="cypher-run"]');
    await page.waitForSelector('[data-testid="cypher-table"] tbody tr');
    const cell = await page.locator('[data-testid="cypher-table"] tbody tr td').first().textContent();
    if (!/checkout/.test(cell)) fail(`first cell: ${cell}`);
    await page.fill('[data-testid="cypher-query"]', "MATCH (a) DELETE a");
    await page.click('[data-testid="cypher-run"]');
    await page.waitForSelector('[data-testid="cypher-error"]');
    const error = await text(page, "cypher-error");
    if (!/DELETE|read-only|unsupported/i.test(error)) fail(`error: ${error}`);
  });
  await screenshot(page, "4-cypher");

  await check("a process is followed step by step", async () => {
    await page.click('[data-testid="pane-processes"]');
    await page.waitForSelector('[data-testid="processes"] a.process');
    await page.locator('[data-testid="processes"] a.process').first().click();
    await page.waitForSelector('[data-testid="process-steps"] li');
    const steps = await page.locator('[data-testid="process-steps"] li').count();
    if (steps < 3) fail(`${steps} steps`);
    await page.locator('[data-testid="process-steps"] li a').nth(1).click();
    const name = await text(page, "details-name");
    const step = await page.locator('[data-testid="process-steps"] li a').nth(1).textContent();
    if (!step.endsWith(name)) fail(`step ${step} selected ${name}`);
  });

  await check("the ask box plans and runs a question", async () => {
    await page.click('[data-testid="tab-ask"]');
    await page.fill('[data-testid="ask-input"]', "who calls charge");
    await page.click('[data-testid="ask-run"]');
    await page.waitForSelector('[data-testid="ask-plan"] li a.symbol');
    const plan = await text(page, "ask-plan");
    if (!/impact|neighbours|callers/.test(plan) || !/checkout/.test(plan)) fail(`plan: ${plan}`);
    // The router's own answer, rendered as Markdown, with the ids in it as links.
    await page.waitForSelector('[data-testid="ask-answer"] h1');
    if ((await page.locator('[data-testid="ask-answer"] a.symbol[data-node]').count()) < 1) fail("the ask answer links no symbol");
    await page.locator('[data-testid="ask-plan"] li a.symbol', { hasText: "checkout" }).first().click();
    if ((await text(page, "details-name")) !== "checkout") fail("the ask result did not select its node");
  });

  await check("an agent's call shows in the activity feed and lights its node", async () => {
    const client = new Client({ name: "ui-test-agent", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: args.bridge, args: ["--port", String(port)], env: { ...process.env, XDG_RUNTIME_DIR: tmp }, stderr: "ignore" }));
    const result = await client.callTool({ name: "impact", arguments: { target: "apply_discount", direction: "upstream" } });
    if (result.isError) fail(`impact failed: ${JSON.stringify(result.content)}`);
    await client.callTool({ name: "highlight", arguments: { ids: ["Function:shop/pricing.py:is_member"], color: "#ff00aa" } });
    await client.close();
    await page.click('[data-testid="tab-activity"]');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="activity-row"]').length >= 2, null, { timeout: 10_000 });
    const feed = await text(page, "activity");
    if (!/impact/.test(feed) || !/apply_discount/.test(feed) || !/highlight/.test(feed)) fail(`feed: ${feed}`);
    const lit = await page.evaluate(() => window.__nexusGraph.litNodes);
    if (!(lit >= 2)) fail(`lit nodes: ${lit}`);
  });
  await screenshot(page, "5-activity");

  await check("a reload returns to the selected node", async () => {
    await page.reload();
    await page.waitForFunction(() => document.querySelector('[data-testid="details-name"]')?.textContent === "checkout", null, { timeout: 30_000 });
  });

  await check("the light theme and the connection panel", async () => {
    await page.click('[data-testid="theme"]');
    const theme = await page.evaluate(() => document.documentElement.dataset.theme);
    if (theme !== "light") fail(`theme ${theme}`);
    await page.click('[data-testid="tab-connection"]');
    await page.waitForSelector('[data-testid="mcp-snippet"]');
    const snippet = JSON.parse(await text(page, "mcp-snippet"));
    if (!path.isAbsolute(snippet.mcpServers.nexus.command)) fail(`snippet: ${JSON.stringify(snippet)}`);
    const http = JSON.parse(await text(page, "mcp-http-snippet")).mcpServers.nexus;
    const port = new URL(page.url()).port;
    if (http.url !== `http://127.0.0.1:${port}/mcp`) fail(`http snippet url: ${JSON.stringify(http)}`);
    if (!/^Bearer <the contents of \/.+\/mcp-token>$/.test(http.headers.Authorization)) fail(`http snippet token: ${JSON.stringify(http)}`);
    if (!/connected/.test(await text(page, "link-text"))) fail(`link: ${await text(page, "link-text")}`);
  });
  await screenshot(page, "6-light-connection");

  await check("Esc clears the selection", async () => {
    await page.keyboard.press("Escape");
    await page.waitForSelector('[data-testid="details"] .empty', { state: "attached" });
    await page.waitForFunction(() => window.__nexusGraph.selectedId === null, null, { timeout: 5_000 });
    if (await page.evaluate(() => location.hash)) fail("the URL hash still names a node");
  });
  // A drop as the browser delivers it (a DataTransfer holding one file). Real folder drops need
  // the entries API of a real drag, which scripts cannot build; folders are covered by picking.
  const drop = (name, bytes) =>
    page.evaluate(async ([name, bytes]) => {
      const body = bytes === null ? await (await fetch("/api/repo.zip", { headers: { "X-Nexus-Token": sessionStorage.getItem("nexus-api-token") } })).blob() : new Blob([bytes]);
      const transfer = new DataTransfer();
      transfer.items.add(new File([body], name));
      document.querySelector(".app").dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, [name, bytes]);

  await check("a dropped ZIP archive is indexed, a broken one is a clear error", async () => {
    await drop("dropped-shop.zip", null);
    await page.waitForFunction(() => /^dropped-shop · 6 files/.test(document.querySelector('[data-testid="summary"]')?.textContent || ""), null, { timeout: 60_000 });
    await page.waitForFunction(() => /^Indexed 6 files/.test(document.querySelector('[data-testid="load-status"]')?.textContent || ""), null, { timeout: 60_000 });
    await drop("broken.zip", "PK\u0003\u0004 this is not a zip archive");
    await page.waitForFunction(() => /zip/i.test(document.querySelector('[data-testid="load-status"]')?.textContent || "") && !/^Indexed/.test(document.querySelector('[data-testid="load-status"]')?.textContent || ""), null, { timeout: 30_000 });
    const status = await text(page, "load-status");
    const summary = await text(page, "summary");
    if (!/^dropped-shop · 6 files/.test(summary)) fail(`a broken drop lost the graph: ${summary}`);
    await drop("notes.txt", "hello");
    await page.waitForFunction(() => /drop a folder or a ZIP archive here/.test(document.querySelector('[data-testid="load-status"]')?.textContent || ""), null, { timeout: 10_000 });
    console.log(`    broken ZIP: ${status}`);
  });

  if (errors.length) fail(`page errors: ${errors.join("; ")}`);
  console.log("ui test passed");
} catch (err) {
  console.log(bridgeLog.split("\n").slice(-20).join("\n"));
  console.error(`FAILED: ${err.message}`);
  process.exitCode = 1;
} finally {
  await browser.close();
  bridge.kill();
  fs.rmSync(tmp, { recursive: true, force: true });
}
