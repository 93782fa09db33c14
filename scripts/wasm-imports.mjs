// Checks that built wasm modules import only what wasm-bindgen provides: an import from "env"
// is a C function the wasm libc lacks, which no page can load. Usage: node wasm-imports.mjs FILE…
import fs from "node:fs";

let bad = 0;
for (const file of process.argv.slice(2)) {
  const module = new WebAssembly.Module(fs.readFileSync(file));
  const foreign = WebAssembly.Module.imports(module).filter((i) => i.module === "env");
  for (const i of foreign) {
    console.error(`${file}: imports ${i.kind} \`${i.name}\` from "env": the wasm libc lacks it (scripts/wasm-cc.sh)`);
    bad += 1;
  }
}
process.exit(bad === 0 ? 0 : 1);
