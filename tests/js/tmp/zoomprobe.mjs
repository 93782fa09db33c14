import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
const repo = process.argv[2];
const ui = process.argv[3];
const port = 54395;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "zp-"));
const hub = spawn("/work/main/target/release/nexus-bridge", ["serve", "--port", String(port), "--repo", repo], { env: { ...process.env, NEXUS_UI_DIR: ui, XDG_RUNTIME_DIR: tmp }, stdio: ["ignore", "ignore", "ignore"] });
await new Promise((r) => setTimeout(r, 1500));
const context = await chromium.launchPersistentContext(path.join(tmp, "p"), { executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"] });
const page = context.pages()[0];
await page.goto(`http://127.0.0.1:${port}/`);
await page.waitForFunction(() => /^Indexed /.test(document.querySelector('[data-testid="load-status"]')?.textContent || ""), null, { timeout: 120000 });
await page.waitForFunction(() => window.__nexusGraph && window.__nexusGraph.firstPictureMs > 0);
await page.waitForTimeout(1500);
const run = (label, setup, zoomSign) => page.evaluate(([setup, zoomSign]) => new Promise((resolve) => {
  eval(setup);
  const canvas = document.querySelector('[data-testid="graph-canvas"]');
  const box = canvas.getBoundingClientRect();
  const [cx, cy] = [box.left + box.width / 2, box.top + box.height / 2];
  const g = window.__nexusGraph;
  const f0 = g.frames; const start = performance.now(); const ms = []; let zooms = [];
  const step = (now) => {
    const t = (now - start) / 1000;
    ms.push(g.frameMs);
    canvas.dispatchEvent(new WheelEvent("wheel", { clientX: cx, clientY: cy, deltaY: zoomSign * (Math.floor(t) % 2 ? 40 : -40), bubbles: true, cancelable: true }));
    if (now - start < 3000) return requestAnimationFrame(step);
    ms.sort((a, b) => a - b);
    resolve({ fps: ((g.frames - f0) * 1000) / (performance.now() - start), p50: ms[ms.length >> 1], p90: ms[Math.floor(ms.length * 0.9)], nodes: g.visibleNodes, labels: g.visibleLabels });
  };
  requestAnimationFrame(step);
}), [setup, zoomSign]).then((r) => console.log(label, JSON.stringify(r)));
for (const skip of ["", "discs", "groupedges", "nodeedges", "nodes", "labels", "discs groupedges nodeedges nodes labels"]) {
  await page.reload();
  await page.waitForFunction(() => window.__nexusGraph && window.__nexusGraph.firstPictureMs > 0, null, { timeout: 60000 });
  await page.waitForTimeout(1000);
  await run("zoom skip " + skip, `window.__skip='${skip}'; document.querySelector('.graph-labels').style.display='${skip.includes("labels") ? "none" : ""}'`, 1);
}
await context.close(); hub.kill(); fs.rmSync(tmp, { recursive: true, force: true });
