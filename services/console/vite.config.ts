// The console's production build: static files under dist/, served by the control plane at /console
// (services/control-plane/src/admin/console-routes.ts). Vite reads the JSX setting from tsconfig.json.
import { defineConfig } from "vite";

export default defineConfig({
  root: import.meta.dirname,
  base: "/console/",
  // No source maps: the admin port would serve the console's source to anyone who reaches it. For
  // debugging, `pnpm build:console --sourcemap` makes them (docs/console.md).
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 400 },
  logLevel: "warn",
});
