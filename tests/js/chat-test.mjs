// Chat tab test: the real bridge with an LLM provider (the llm-sim simulator, OpenAI wire format)
// and a hosted server-everything; headless Chromium asks a question in the Chat tab, the model
// calls nexus:search (answered by this tab's engine) and everything:echo (hosted), the answer
// streams in as Markdown with graph references as links; Stop ends a slow turn; a reload brings
// the conversation back and it goes on; New chat and the session list switch conversations; a
// file's summary described by the LLM is shown and kept across a reload.
// Usage: node chat-test.mjs --bridge BIN --ui DIST --repo DIR --port N --config MCP_JSON --llm BASE_URL
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith("--") ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []),
);
const port = Number(args.port || 54394);
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nexus-chat-test-"));

function fail(message) {
  throw new Error(message);
}

async function check(name, fn) {
  const started = Date.now();
  await fn();
  console.log(`ok  ${name} (${Date.now() - started} ms)`);
}

const at = (testid) => `[data-testid="${testid}"]`;
const SYMBOL = "Method:shop/cart.py:Cart.checkout";
const QUESTION = [
  "Where is checkout handled? [sim:native]",
  `calls: ${JSON.stringify([
    { tool: "nexus:search", arguments: { query: "checkout" } },
    { tool: "everything:echo", arguments: { message: `see ${SYMBOL}` } },
  ])}`,
].join("\n");

const bridge = spawn(
  args.bridge,
  ["serve", "--port", String(port), "--repo", args.repo, "--mcp-config", args.config, "--chat-db", path.join(tmp, "chat.sqlite3")],
  {
    env: {
      ...process.env,
      // Every line the bridge logs is searched for the key below.
      NEXUS_LOG: "debug",
      NEXUS_UI_DIR: args.ui,
      XDG_RUNTIME_DIR: tmp,
      NEXUS_LLM_PROVIDER: "openai",
      NEXUS_LLM_MODEL: "sim-model",
      NEXUS_LLM_BASE_URL: args.llm,
      OPENAI_API_KEY: "sk-test-not-a-real-key",
    },
    stdio: ["ignore", "ignore", "pipe"],
  },
);
let bridgeLog = "";
bridge.stderr.on("data", (d) => (bridgeLog += d));
const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
let page;
const errors = [];
// The chat socket's frames, printed when a check fails.
const frames = [];
try {
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/api/bridge`);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("websocket", (ws) => {
    if (!ws.url().endsWith("/chat")) return;
    ws.on("framereceived", (f) => frames.push(String(f.payload).slice(0, 300)));
    ws.on("framesent", (f) => frames.push(`sent ${String(f.payload).slice(0, 100)}`));
  });
  const secret = fs.readFileSync(path.join(tmp, "nexus", "browser-token"), "utf8").trim();
  await page.goto(`http://127.0.0.1:${port}/?token=${secret}`);
  await page.waitForFunction(() => /^Indexed \d+ files/.test(document.querySelector('[data-testid="load-status"]')?.textContent || ""), null, { timeout: 60_000 });

  await check("the Chat tab connects and names the provider and model", async () => {
    await page.click(at("tab-chat"));
    await page.waitForSelector(`${at("chat-connection")}[data-state="connected"]`, { timeout: 30_000 });
    await page.waitForFunction(() => document.querySelector('[data-testid="chat-provider"]')?.textContent === "openai · sim-model");
    if ((await page.locator(at("chat-unconfigured")).count()) !== 0) fail("the provider shows as missing");
    // The key never reaches the page.
    if ((await page.content()).includes("sk-test")) fail("the API key reached the page");
  });

  await check("a question runs nexus:search in this tab, then a hosted tool, and the answer streams in", async () => {
    // Every state the answer passes through, to see it arrive piece by piece.
    await page.evaluate(() => {
      window.__answers = [];
      const box = document.querySelector('[data-testid="chat-messages"]');
      new MutationObserver(() => {
        const answers = box.querySelectorAll('[data-role="assistant"]');
        const last = (answers[answers.length - 1]?.textContent || "").trim();
        if (window.__answers[window.__answers.length - 1] !== last) window.__answers.push(last);
      }).observe(box, { childList: true, subtree: true, characterData: true });
    });
    await page.fill(at("chat-input"), QUESTION);
    await page.click(at("chat-send"));
    await page.waitForSelector(`${at("chat-tool")}[data-tool="nexus:search"][data-state="complete"]`, { timeout: 30_000 });
    await page.waitForSelector(`${at("chat-tool")}[data-tool="everything:echo"][data-state="complete"]`, { timeout: 30_000 });
    await page.waitForSelector(`${at("chat-turn-end")}[data-outcome="answered"]`, { timeout: 30_000 });
    const search = await page.locator(`${at("chat-tool")}[data-tool="nexus:search"] ${at("chat-tool-result")}`).textContent();
    if (!search.includes("checkout")) fail(`nexus:search result: ${search}`);
    const echo = await page.locator(`${at("chat-tool")}[data-tool="everything:echo"] ${at("chat-tool-result")}`).textContent();
    if (!echo.includes(`Echo: see ${SYMBOL}`)) fail(`echo result: ${echo}`);
    const answers = await page.evaluate(() => window.__answers);
    const final = answers[answers.length - 1] || "";
    if (!final.startsWith("Answer from the tools:")) fail(`final answer: ${final}`);
    const partial = answers.filter((a) => a.startsWith("Answer from") && a.length < final.length && final.startsWith(a));
    if (partial.length < 2) fail(`the answer did not stream (${partial.length} partial states)`);
    const usage = await page.locator(at("chat-session-usage")).textContent();
    if (!/session: [1-9]\d* tokens/.test(usage)) fail(`session usage: ${usage}`);
    const turn = await page.locator(at("chat-turn-end")).last().textContent();
    if (!/answered · [1-9]\d* tokens/.test(turn)) fail(`turn usage: ${turn}`);
  });

  await check("the turn shows which tools the model saw, in which form and why", async () => {
    const seen = page.locator(at("chat-tools-seen")).last();
    const line = await seen.locator("summary").textContent();
    if (!/^Tools seen: [1-9]\d* full, \d+ condensed, \d+ by name · \d+ left out · \d+ of \d+ tokens/.test(line)) fail(`tools seen line: ${line}`);
    await seen.locator("summary").click();
    const route = seen.locator(`${at("chat-tool-seen")}[data-tool="nexus:route"]`);
    if ((await route.getAttribute("data-tier")) !== "full") fail("nexus:route is not shown in full");
    const why = await route.textContent();
    if (!/skeleton/.test(why) || !/score \d+ \(rules \d+, vector \d+\)/.test(why)) fail(`nexus:route row: ${why}`);
    const echo = await seen.locator(`${at("chat-tool-seen")}[data-tool="everything:echo"]`).getAttribute("data-tier");
    if (!["full", "condensed"].includes(echo)) fail(`everything:echo was ${echo}`);
  });

  await check("the nodes the agent touched are lit and a symbol in the answer opens its code", async () => {
    const lit = await page.evaluate(() => window.__nexusGraph?.litNodes || 0);
    if (lit < 1) fail("no node lit");
    const link = `${at("chat-answer")} a.symbol[data-node="${SYMBOL}"]`;
    await page.locator(link).last().click();
    await page.waitForFunction((id) => window.__nexusGraph?.selectedId === id, SYMBOL);
    await page.waitForFunction(() => /shop\/cart\.py/.test(document.querySelector('[data-testid="code-path"]')?.textContent || ""));
    await page.click(at("tab-chat"));
  });

  await check("Stop ends a slow answer", async () => {
    await page.fill(at("chat-input"), "Talk slowly [sim:slow]");
    await page.click(at("chat-send"));
    await page.waitForFunction(() => /word word/.test([...document.querySelectorAll('[data-role="assistant"]')].pop()?.textContent || ""), null, { timeout: 30_000 });
    await page.click(at("chat-stop"));
    await page.waitForSelector(`${at("chat-turn-end")}[data-outcome="stopped"]`, { timeout: 10_000 });
    if (await page.locator(at("chat-stop")).isEnabled()) fail("Stop stays enabled after the turn ended");
  });

  await check("a reload brings the conversation back and it goes on", async () => {
    await page.reload();
    // The address keeps the selected node; once the picture is back it is selected again (which
    // shows Details), so the Chat tab is opened after that.
    await page.waitForFunction((id) => window.__nexusGraph?.selectedId === id, SYMBOL, { timeout: 30_000 });
    await page.click(at("tab-chat"));
    await page.waitForSelector(`${at("chat-connection")}[data-state="reconnected"]`, { timeout: 30_000 });
    await page.waitForSelector(`${at("chat-tool")}[data-tool="everything:echo"][data-state="complete"]`);
    const shown = await page.locator(at("chat-messages")).textContent();
    for (const part of ["Where is checkout handled?", "Answer from the tools:", "Talk slowly"]) {
      if (!shown.includes(part)) fail(`${part} is missing after the reload: ${shown.slice(0, 400)}`);
    }
    // References in the restored answers are links once the restored graph is drawn.
    await page.waitForSelector(`${at("chat-answer")} a.symbol[data-node="${SYMBOL}"]`, { timeout: 10_000 });
    await page.fill(at("chat-input"), "And now? [sim:plain]");
    await page.click(at("chat-send"));
    await page.waitForFunction(() => /Hello from the simulator: all is well\./.test(document.querySelector('[data-testid="chat-messages"]')?.textContent || ""), null, { timeout: 30_000 });
    await page.waitForSelector(`${at("chat-turn-end")}[data-outcome="answered"]`);
  });

  await check("New chat starts an empty conversation and the session list opens the old one", async () => {
    await page.click(at("chat-new"));
    await page.waitForFunction(() => !document.querySelector('[data-testid="chat-messages"]')?.textContent.includes("Where is checkout"));
    await page.click(`${at("chat-sessions")} summary`);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="chat-session"]').length >= 2);
    await page.locator(at("chat-session"), { hasText: "Where is checkout" }).first().click();
    await page.waitForFunction(() => /Answer from the tools:/.test(document.querySelector('[data-testid="chat-messages"]')?.textContent || ""));
  });

  await check("the conversation list is this project's, each with its project and date, all projects on request", async () => {
    const rows = () => page.locator(at("chat-session-project")).evaluateAll((spans) => spans.map((s) => [s.dataset.project, s.textContent]));
    const listed = await rows();
    const filed = listed.filter(([project]) => project === "sample-shop");
    if (filed.length === 0) fail(`no conversation filed under sample-shop: ${JSON.stringify(listed)}`);
    for (const [project, text] of listed) {
      if (project !== "sample-shop" && project !== "") fail(`another project's conversation listed: ${project}`);
      if (!/ · (sample-shop|no project) · \d/.test(text)) fail(`no project and date: ${text}`);
    }
    const summary = await page.locator(`${at("chat-sessions")} summary`).textContent();
    if (!summary.startsWith("Conversations on this project")) fail(`summary: ${summary}`);
    await page.click(at("chat-all-projects"));
    await page.waitForFunction(() => document.querySelector('[data-testid="chat-sessions"] summary')?.textContent.startsWith("Conversations, all projects"));
    await page.click(at("chat-all-projects"));
  });

  await check("a file described by the LLM shows the description, which a reload keeps", async () => {
    const FILE = "File:shop/cart.py";
    const secret = fs.readFileSync(path.join(tmp, "nexus", "browser-token"), "utf8").trim();
    await page.goto(`http://127.0.0.1:${port}/?token=${secret}#node=${encodeURIComponent(FILE)}`);
    await page.waitForFunction((id) => window.__nexusGraph?.selectedId === id, FILE, { timeout: 30_000 });
    const button = `.details ${at("describe")}[data-node="${FILE}"]`;
    await page.waitForSelector(`${button}:not(.hidden)`, { timeout: 30_000 });
    await page.click(button);
    await page.waitForFunction(() => /Described by the LLM/.test(document.querySelector('.details [data-testid="describe-status"]')?.textContent || ""), null, { timeout: 30_000 });
    await page.waitForFunction(() => /^Hello from the simulator: all is well\./.test(document.querySelector(".details .doc")?.textContent || ""), null, { timeout: 10_000 });
    const doc = await page.locator(".details .doc").textContent();
    if (!/class/.test(doc)) fail(`the structural summary is gone: ${doc}`);
    // Saved with the graph: a reload restores it.
    await page.waitForTimeout(1_000);
    await page.reload();
    await page.waitForFunction((id) => window.__nexusGraph?.selectedId === id, FILE, { timeout: 30_000 });
    await page.waitForFunction(() => /^Hello from the simulator: all is well\./.test(document.querySelector(".details .doc")?.textContent || ""), null, { timeout: 30_000 });
  });

  await check("a folder in the file tree is described by the LLM too", async () => {
    await page.click(at("pane-files"));
    const row = page.locator(".describe", { has: page.locator(`${at("describe")}[data-node="Folder:shop"]`) });
    await row.locator(at("describe")).click();
    await row.locator(at("describe-status")).filter({ hasText: /Described by the LLM .*Hello from the simulator/ }).waitFor({ timeout: 30_000 });
  });

  await check("a cluster (community) is described by the LLM too", async () => {
    await page.click(at("pane-clusters"));
    await page.locator(`${at("clusters")} a.cluster`).first().click();
    const row = page.locator(".describe", { has: page.locator(`${at("describe")}[data-node^="Community:"]`) });
    await row.locator(at("describe")).click();
    await row.locator(at("describe-status")).filter({ hasText: /Described by the LLM .*Hello from the simulator/ }).waitFor({ timeout: 30_000 });
  });

  if (errors.length) fail(`page errors: ${errors.join("; ")}`);
  if (bridgeLog.includes("sk-test")) fail("the API key reached the bridge's log");
  console.log("chat test passed");
} catch (err) {
  console.log(bridgeLog.split("\n").slice(-30).join("\n"));
  const shown = await page?.locator(at("chat-messages")).textContent().catch(() => "");
  console.log(`chat-messages: ${shown}`);
  console.log(`page errors: ${errors.join("; ")}`);
  await page?.screenshot({ path: path.join(os.tmpdir(), "nexus-chat-test-failed.png") }).catch(() => {});
  console.log(`chat frames:\n${frames.slice(-40).join("\n")}`);
  console.error(`FAILED: ${err.message}`);
  process.exitCode = 1;
} finally {
  await browser.close();
  bridge.kill();
  fs.rmSync(tmp, { recursive: true, force: true });
}
