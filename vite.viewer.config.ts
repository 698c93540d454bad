import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The viewer's front end (viewer-app/), built into dist/viewer-app/ by `npm run build:viewer`:
// one module and one stylesheet (the static export inlines both), a manifest naming them.
const root = fileURLToPath(new URL("./viewer-app/", import.meta.url));

export default defineConfig({
  root,
  base: "/",
  publicDir: false,
  logLevel: "warn",
  build: {
    outDir: fileURLToPath(new URL("./dist/viewer-app/", import.meta.url)),
    emptyOutDir: true,
    manifest: "manifest.json",
    target: "es2022",
    cssCodeSplit: false,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    rolldownOptions: {
      output: {
        entryFileNames: "assets/app-[hash].js",
        assetFileNames: "assets/app-[hash][extname]",
      },
    },
  },
});
