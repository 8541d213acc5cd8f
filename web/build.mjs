// Bundles src/main.ts (with clients/typescript/sse.ts and openapi-fetch) and src/play.css into
// one HTML file, dist/play.html, which Django serves at /play/ (batak_api/play.py). The output
// depends on the source and the pinned toolchain only, so CI rebuilds it and compares.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { build } from "esbuild";

const bundle = await build({
  entryPoints: ["src/main.ts"],
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2022",
  write: false,
  legalComments: "none",
});
const script = bundle.outputFiles[0].text.replaceAll("</script", "<\\/script");
const css = (await build({ entryPoints: ["src/play.css"], minify: true, write: false }))
  .outputFiles[0].text;
const page = readFileSync("src/index.html", "utf8")
  .replace("/*STYLE*/", () => css.trim())
  .replace("/*SCRIPT*/", () => script.trim());
mkdirSync("dist", { recursive: true });
writeFileSync("dist/play.html", page);
console.log(`dist/play.html: ${Buffer.byteLength(page)} bytes`);
