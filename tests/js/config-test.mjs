// Configuration test: a bridge with no model and a configuration file that does not exist yet. The
// Chat tab names the file and the [llm] section to add; the test saves a provider into the file
// (llm-sim, its key in a 0600 key file) and the page, neither reloaded nor restarted, shows that the
// provider was picked up and answers a question with the file's temperature and prompt addition.
// Screenshots of both states are saved and inspected: the file's path and snippet are painted
// inside the window, then the picked-up line in the theme's "ok" green.
// Usage: node config-test.mjs --bridge BIN --ui DIST --repo DIR --port N --llm BASE_URL --shots DIR
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { args, check, fail, startHub } from "./harness.mjs";

const port = Number(args.port || 54395);
const shots = args.shots || "target/config-screenshots";
fs.mkdirSync(shots, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nexus-config-test-"));
const config = path.join(tmp, "conf", "nexus.toml");
const KEY = "sk-test-config-file-key";
const at = (testid) => `[data-testid="${testid}"]`;

// No model from the environment: only the file may configure one.
const env = { NEXUS_LOG: "info", NEXUS_CONFIG: config, NEXUS_CHAT_DB: path.join(tmp, "chat.sqlite3") };
for (const name of Object.keys(process.env)) {
  if (/^NEXUS_LLM_|_API_KEY$/.test(name)) env[name] = "";
}
const hub = await startHub({ bridge: args.bridge, ui: args.ui, port, repo: args.repo, tmp, env });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] });

/// Colours of a screenshot of `clip` (or the whole page): how many distinct ones, and how many
/// pixels are near `near` ([r, g, b]).
async function inspect(page, file, clip, near) {
  const png = await page.screenshot({ path: file, clip });
  return page.evaluate(async ([b64, near]) => {
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
    let close = 0;
    for (let i = 0; i < data.length; i += 4) {
      seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
      if (near && Math.abs(data[i] - near[0]) + Math.abs(data[i + 1] - near[1]) + Math.abs(data[i + 2] - near[2]) < 60) close++;
    }
    return { colours: seen.size, close };
  }, [png.toString("base64"), near]);
}

/// The element's box, failing unless it lies inside the viewport.
async function inside(page, testid) {
  const box = await page.locator(at(testid)).boundingBox();
  const { width, height } = page.viewportSize();
  if (!box || box.width < 20 || box.height < 8 || box.x < 0 || box.y < 0 || box.x + box.width > width || box.y + box.height > height) {
    fail(`${testid} is not inside the window: ${JSON.stringify(box)}`);
  }
  return box;
}

let page;
try {
  page = await browser.newPage({ viewport: { width: 1440, height: 900 }, colorScheme: "dark" });
  await page.goto(`http://127.0.0.1:${port}/?token=${hub.secret}`);
  await page.waitForFunction(() => /^Indexed \d+ files/.test(document.querySelector('[data-testid="load-status"]')?.textContent || ""), null, { timeout: 60_000 });
  // Set once: still there at the end means the page was never reloaded.
  await page.evaluate(() => (window.__sameDocument = true));

  await check("without a model the Chat tab names the configuration file and the section to add", async () => {
    await page.click(at("tab-chat"));
    await page.waitForSelector(`${at("chat-connection")}[data-state="connected"]`, { timeout: 30_000 });
    await page.waitForSelector(at("chat-config-path"), { timeout: 10_000 });
    const shown = (await page.locator(at("chat-config-path")).textContent()).trim();
    if (shown !== config) fail(`the page names ${shown}, not ${config}`);
    const snippet = await page.locator(at("chat-config-snippet")).textContent();
    for (const words of ["[llm]", "provider = ", "model = ", "api_key_file = ", "base_url = "]) {
      if (!snippet.includes(words)) fail(`the snippet lacks ${words}: ${snippet}`);
    }
    const text = await page.locator(at("chat-unconfigured")).textContent();
    if (!/no restart needed/.test(text)) fail(`the page does not say a restart is not needed: ${text}`);
    if ((await page.locator(at("chat-provider")).textContent()) !== "no model") fail("the head names a model");
    const file = path.join(shots, "config-1-no-model.png");
    await inspect(page, file);
    const box = await inside(page, "chat-unconfigured");
    const part = await inspect(page, path.join(shots, "config-1-no-model-help.png"), box);
    if (part.colours < 20) fail(`the help box looks empty (${part.colours} colours)`);
    console.log(`    screenshot ${file}`);
  });

  await check("a file with a mistake is named on the page with its line and column", async () => {
    // The folder did not exist when the bridge started.
    fs.mkdirSync(path.dirname(config), { recursive: true });
    fs.writeFileSync(config, '[llm]\nprovidr = "openai"\n');
    await page.waitForFunction(() => /line 2, column 1: unknown field `providr`/.test(document.querySelector('[data-testid="chat-unconfigured"]')?.textContent || ""), null, { timeout: 10_000 });
    if ((await page.locator(at("chat-config-snippet")).count()) !== 1) fail("the snippet is gone");
  });

  await check("a provider saved into the file is picked up without reloading the page or restarting the bridge", async () => {
    fs.writeFileSync(path.join(tmp, "conf", "sim.key"), `${KEY}\n`, { mode: 0o600 });
    fs.writeFileSync(
      config,
      [
        "[llm]",
        'provider = "openai"',
        'model = "sim-model"',
        `base_url = "${args.llm}"`,
        'api_key_file = "sim.key"',
        "temperature = 0.3",
        'system_prompt_addition = "Sign every answer as Captain Config."',
        "",
      ].join("\n"),
    );
    await page.waitForSelector(at("chat-picked-up"), { timeout: 10_000 });
    const picked = await page.locator(at("chat-picked-up")).textContent();
    if (!picked.includes("openai · sim-model")) fail(`picked-up line: ${picked}`);
    if ((await page.locator(at("chat-provider")).textContent()) !== "openai · sim-model") fail("the head does not name the model");
    if ((await page.locator(at("chat-unconfigured")).count()) !== 0) fail("the missing-model help is still shown");
    if (!(await page.evaluate(() => window.__sameDocument))) fail("the page was reloaded");
    const file = path.join(shots, "config-2-picked-up.png");
    await inspect(page, file);
    const box = await inside(page, "chat-picked-up");
    // The theme's --ok green (#2fb36d) paints the line.
    const part = await inspect(page, path.join(shots, "config-2-picked-up-line.png"), box, [0x2f, 0xb3, 0x6d]);
    if (part.close < 30) fail(`the picked-up line is not painted green (${part.close} pixels)`);
    console.log(`    screenshot ${file}`);
  });

  await check("the picked-up provider answers, with the file's temperature and prompt addition, and its key stays on the bridge", async () => {
    await page.fill(at("chat-input"), "Say hello [sim:plain]");
    await page.click(at("chat-send"));
    await page.waitForSelector(`${at("chat-turn-end")}[data-outcome="answered"]`, { timeout: 30_000 });
    const log = await (await fetch(`${args.llm.replace(/\/v1$/, "")}/log`)).text();
    if (!log.includes('"temperature":0.3')) fail(`the request carried no temperature 0.3: ${log.slice(0, 400)}`);
    if (!log.includes("Sign every answer as Captain Config.")) fail("the system prompt lacks the file's addition");
    if ((await page.content()).includes(KEY)) fail("the key reached the page");
    if (hub.log().includes(KEY)) fail("the key reached the bridge's log");
    if (!hub.log().includes("read the configuration file again")) fail(`the bridge did not log the re-read:\n${hub.log().slice(-800)}`);
    await inspect(page, path.join(shots, "config-3-answered.png"));
  });
  console.log("config test passed");
} catch (err) {
  console.log(hub.log().slice(-2000));
  throw err;
} finally {
  await browser.close();
  hub.process.kill();
}
