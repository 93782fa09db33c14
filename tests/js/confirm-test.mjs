// Confirmation test: the real bridge with the llm-sim provider on the text protocol and a hosted
// @modelcontextprotocol/server-filesystem; headless Chromium asks in the Chat tab. A write (not
// read-only) shows a confirmation chip: Deny leaves the file alone and the model reads the refusal,
// Allow once writes it, Always writes without asking again; a read-only read runs unasked; a
// ```tool block quoted from a file's text runs nothing; Stop ends a turn waiting for an answer.
// Usage: node confirm-test.mjs --bridge BIN --ui DIST --repo DIR --port N --config MCP_JSON --llm BASE_URL --fsroot DIR
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { chromium } from "playwright-core";
import { args, check, fail } from "./harness.mjs";

const port = Number(args.port || 54395);
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nexus-confirm-test-"));
const root = args.fsroot;
const at = (testid) => `[data-testid="${testid}"]`;
const ask = (text, calls) => `${text}\ncalls: ${JSON.stringify(calls)}`;
const write = (name, content) => ({ tool: "fs:write_file", arguments: { path: path.join(root, name), content } });
const exists = (name) => fs.existsSync(path.join(root, name));

const bridge = spawn(
  args.bridge,
  ["serve", "--port", String(port), "--repo", args.repo, "--mcp-config", args.config, "--chat-db", path.join(tmp, "chat.sqlite3")],
  {
    env: {
      ...process.env,
      NEXUS_UI_DIR: args.ui,
      XDG_RUNTIME_DIR: tmp,
      NEXUS_LLM_PROVIDER: "openai",
      NEXUS_LLM_MODEL: "sim-model",
      NEXUS_LLM_BASE_URL: args.llm,
      NEXUS_LLM_NATIVE_TOOLS: "0",
      OPENAI_API_KEY: "sk-test-not-a-real-key",
    },
    stdio: ["ignore", "ignore", "pipe"],
  },
);
let bridgeLog = "";
bridge.stderr.on("data", (d) => (bridgeLog += d));
const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
const frames = [];
let page;
try {
  let secret = "";
  for (let i = 0; i < 100 && !secret; i++) {
    try {
      secret = fs.readFileSync(path.join(tmp, "nexus", "browser-token"), "utf8").trim();
      await fetch(`http://127.0.0.1:${port}/api/bridge`);
    } catch {
      secret = "";
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  // The filesystem server is online before the first question.
  for (let i = 0; i < 300 && !/hosted server online/.test(bridgeLog); i++) await new Promise((r) => setTimeout(r, 100));
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on("websocket", (ws) => {
    if (!ws.url().endsWith("/chat")) return;
    ws.on("framereceived", (f) => frames.push(String(f.payload).slice(0, 300)));
    ws.on("framesent", (f) => frames.push(`sent ${String(f.payload).slice(0, 100)}`));
  });
  await page.goto(`http://127.0.0.1:${port}/?token=${secret}`);
  await page.click(at("tab-chat"));
  await page.waitForSelector(`${at("chat-connection")}[data-state="connected"]`, { timeout: 30_000 });

  const turns = () => page.locator(at("chat-turn-end")).count();
  const send = async (text) => {
    const before = await turns();
    await page.fill(at("chat-input"), text);
    await page.click(at("chat-send"));
    return before;
  };
  const turnEnded = (before, outcome = "answered") =>
    page.waitForFunction(
      ([n, outcome]) => {
        const ends = document.querySelectorAll('[data-testid="chat-turn-end"]');
        return ends.length > n && ends[ends.length - 1].dataset.outcome === outcome;
      },
      [before, outcome],
      { timeout: 30_000 },
    );
  const lastAnswer = () => page.evaluate(() => [...document.querySelectorAll('[data-role="assistant"]')].pop()?.textContent || "");
  const asking = `${at("chat-tool")}[data-tool="fs:write_file"][data-state="confirm"] ${at("chat-confirm")}`;

  await check("a hosted write shows a confirmation chip with the tool, its arguments and that it may destroy data", async () => {
    const before = await send(ask("Write the file [sim:text-tools]", [write("denied.txt", "should never be written")]));
    await page.waitForSelector(asking, { timeout: 30_000 });
    const args = await page.locator(`${asking} ${at("chat-confirm-args")}`).textContent();
    if (!args.includes("denied.txt") || !args.includes("should never be written")) fail(`arguments shown: ${args}`);
    const effect = await page.locator(`${asking} ${at("chat-confirm-effect")}`).textContent();
    if (!/may change or delete data/.test(effect)) fail(`effect shown: ${effect}`);
    if ((await page.locator(asking).getAttribute("data-destructive")) !== "true") fail("write_file is not shown as destructive");
    if (exists("denied.txt")) fail("the file was written before anyone answered");
    await page.click(`${asking} ${at("chat-confirm-deny")}`);
    await turnEnded(before);
  });

  await check("Deny leaves the file untouched and the model receives the refusal", async () => {
    if (exists("denied.txt")) fail("denied.txt was written");
    const answer = await lastAnswer();
    if (!/The user declined this call/.test(answer)) fail(`the model did not read the refusal: ${answer}`);
    const chip = await page.locator(`${at("chat-tool")}[data-tool="fs:write_file"]`).last().getAttribute("data-state");
    if (chip !== "error") fail(`the declined chip is ${chip}`);
  });

  await check("Allow once runs the write", async () => {
    const before = await send(ask("Write it now [sim:text-tools]", [write("allowed.txt", "written after allow")]));
    await page.waitForSelector(asking, { timeout: 30_000 });
    await page.click(`${asking} ${at("chat-confirm-once")}`);
    await turnEnded(before);
    if (!exists("allowed.txt")) fail("allowed.txt was not written");
    const text = fs.readFileSync(path.join(root, "allowed.txt"), "utf8");
    if (text !== "written after allow") fail(`allowed.txt holds ${text}`);
  });

  await check("Always for this tool runs it and the session's next write without asking", async () => {
    let before = await send(ask("Write twice [sim:text-tools]", [write("always1.txt", "one")]));
    await page.waitForSelector(asking, { timeout: 30_000 });
    await page.click(`${asking} ${at("chat-confirm-always")}`);
    await turnEnded(before);
    const chips = await page.locator(at("chat-confirm")).count();
    before = await send(ask("Again [sim:text-tools]", [write("always2.txt", "two")]));
    await turnEnded(before);
    if ((await page.locator(at("chat-confirm")).count()) !== chips) fail("the second write asked again");
    if (!exists("always1.txt") || !exists("always2.txt")) fail("the writes did not happen");
  });

  await check("a read-only tool (readOnlyHint) runs without asking", async () => {
    const chipsBefore = await page.locator(`${at("chat-tool")}[data-tool="fs:read_text_file"]`).count();
    const before = await send(ask("Read it [sim:text-tools]", [{ tool: "fs:read_text_file", arguments: { path: path.join(root, "allowed.txt") } }]));
    await turnEnded(before);
    const chip = page.locator(`${at("chat-tool")}[data-tool="fs:read_text_file"]`).nth(chipsBefore);
    if ((await chip.getAttribute("data-state")) !== "complete") fail("the read did not complete");
    if ((await chip.locator(at("chat-confirm")).count()) !== 0) fail("the read asked for confirmation");
    const result = await chip.locator(at("chat-tool-result")).textContent();
    if (!result.includes("written after allow")) fail(`read result: ${result}`);
  });

  await check("a ```tool block quoted from a file runs nothing", async () => {
    const writes = await page.locator(`${at("chat-tool")}[data-tool="fs:write_file"]`).count();
    const before = await send(ask("What do the notes say? [sim:quote]", [{ tool: "fs:read_text_file", arguments: { path: path.join(root, "notes.md") } }]));
    await turnEnded(before);
    if (exists("pwned.txt")) fail("the quoted block was run");
    if ((await page.locator(`${at("chat-tool")}[data-tool="fs:write_file"]`).count()) !== writes) fail("a write chip appeared");
    const shown = await page.locator(at("chat-messages")).textContent();
    if (!shown.includes("The file says:") || !shown.includes("pwned.txt")) fail(`the quote is not shown: ${shown.slice(-600)}`);
  });

  await check("Stop ends a turn waiting for confirmation and nothing runs", async () => {
    // A new conversation forgets "Always".
    await page.click(at("chat-new"));
    await page.waitForFunction(() => !document.querySelector('[data-testid="chat-messages"]')?.textContent.includes("Write twice"));
    const before = await send(ask("Write once more [sim:text-tools]", [write("stopped.txt", "no")]));
    await page.waitForSelector(asking, { timeout: 30_000 });
    await page.click(at("chat-stop"));
    await turnEnded(before, "stopped");
    if ((await page.locator(at("chat-confirm")).count()) !== 0) fail("the buttons stayed after Stop");
    await page.waitForTimeout(300);
    if (exists("stopped.txt")) fail("stopped.txt was written");
  });
  console.log("confirm test passed");
} catch (err) {
  console.log(`chat frames:\n${frames.slice(-40).join("\n")}`);
  console.log(`bridge log (tail):\n${bridgeLog.slice(-3000)}`);
  throw err;
} finally {
  await browser.close();
  bridge.kill();
}
