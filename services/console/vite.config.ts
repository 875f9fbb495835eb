// The console's production build: static files under dist/, served by the control plane at /console
// (services/control-plane/src/admin/console-routes.ts). Vite reads the JSX setting from tsconfig.json.
import { defineConfig } from "vite";

export default defineConfig({
  root: import.meta.dirname,
  base: "/console/",
  build: { outDir: "dist", emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 400 },
  logLevel: "warn",
});
