import { chromium } from "playwright-core";
import fs from "node:fs";
const context = await chromium.launchPersistentContext(fs.mkdtempSync("/tmp/ce-"), { executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-background-networking", "--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"] });
const page = context.pages()[0];
await page.setContent(`<canvas id=c style="position:fixed;inset:0;width:100vw;height:100vh"></canvas><canvas id=d style="position:fixed;inset:0;width:100vw;height:100vh"></canvas>`);
for (const mode of ["none", "gl-clear", "gl-clear+2d"]) {
  const r = await page.evaluate((mode) => new Promise((res) => {
    const c = document.getElementById("c"); c.width = innerWidth; c.height = innerHeight;
    const d = document.getElementById("d"); d.width = innerWidth; d.height = innerHeight;
    const gl = c.getContext("webgl2", { antialias: false, alpha: false });
    const ctx = d.getContext("2d");
    let n = 0; const t0 = performance.now();
    const step = () => {
      n++;
      if (mode !== "none") { gl.clearColor(n % 2 * 0.1, 0, 0, 1); gl.clear(gl.COLOR_BUFFER_BIT); }
      if (mode === "gl-clear+2d") { ctx.clearRect(0, 0, d.width, d.height); ctx.font = "12px sans-serif"; for (let i = 0; i < 100; i++) ctx.fillText("label " + i, (i * 97 + n) % d.width, (i * 53) % d.height); }
      if (performance.now() - t0 < 3000) requestAnimationFrame(step); else res(n / 3);
    };
    requestAnimationFrame(step);
  }), mode);
  console.log(mode, r.toFixed(1), "fps");
}
await context.close();
