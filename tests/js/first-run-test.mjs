// First-run test: what a new user sees in the first minute. The real bridge serves the sample and
// the built UI; headless Chromium opens the link at 1280×800 and 1600×1000 and checks that the
// first picture shows every node of the sample inside the window (no node or group disc cut by an
// edge), saves screenshots, and that the last line `serve` printed is the link.
// Usage: node first-run-test.mjs --bridge BIN --ui DIST --repo DIR --port N --shots DIR
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { args, check, fail, startHub } from "./harness.mjs";

const port = Number(args.port || 54393);
const shots = args.shots || "target/first-run-screenshots";
fs.mkdirSync(shots, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nexus-first-run-"));
const hub = await startHub({ bridge: args.bridge, ui: args.ui, port, repo: args.repo, tmp });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"],
});
try {
  for (const [width, height] of [[1280, 800], [1600, 1000]]) {
    const page = await browser.newPage({ viewport: { width, height }, colorScheme: "dark" });
    await page.goto(`http://127.0.0.1:${port}/?token=${hub.secret}`);
    await check(`the first picture at ${width}×${height} shows every node`, async () => {
      await page.waitForFunction(() => /^Indexed \d+ files/.test(document.querySelector('[data-testid="load-status"]')?.textContent || ""), null, { timeout: 60_000 });
      await page.waitForFunction(() => window.__nexusGraph && window.__nexusGraph.firstPictureMs > 0, null, { timeout: 30_000 });
      const shot = path.join(shots, `first-${width}x${height}.png`);
      await page.screenshot({ path: shot });
      console.log(`    screenshot ${shot}`);
      const g = await page.evaluate(() => ({ ...window.__nexusGraph }));
      if (g.nodesCut !== 0 || g.groupsCut !== 0) fail(`${g.nodesCut} nodes and ${g.groupsCut} group discs cut by the edges`);
      const canvas = await page.locator('[data-testid="graph-view"] canvas').first().boundingBox();
      if (!canvas || canvas.x < 0 || canvas.y < 0 || canvas.x + canvas.width > width + 0.5 || canvas.y + canvas.height > height + 0.5) fail(`the picture is not inside the window: ${JSON.stringify(canvas)}`);
    });
    await page.close();
  }
  await check("the last line serve printed is the link to open", async () => {
    const lines = hub.log().split("\n").filter((line) => line.trim() !== "");
    const last = lines[lines.length - 1] || "";
    if (!last.startsWith(`Nexus: open http://127.0.0.1:${port}/?token=`)) fail(`serve's last line: ${last}\n${lines.slice(-5).join("\n")}`);
  });
  console.log("first-run test passed");
} finally {
  await browser.close();
  hub.process.kill();
}
