// Bundles the data plane for production (esbuild): services/data-plane/src/server.ts, @gateway/proto and
// every npm dependency in one ES module run by plain node, without tsx's loader and the memory it takes
// (docs/deploy.md, "Memory"). `pnpm start` runs the TypeScript through tsx; the tests run this bundle,
// built once per run by their global setup (deploy/test/data-plane-bundle.ts).
//
//   pnpm build:data-plane                      -> dist/data-plane.mjs (+ .map, + .LEGAL.txt)
//   tsx deploy/build/bundle-data-plane.ts <outfile>
//
// - import.meta.dirname/filename/url in the workspace's own sources (proto/src/index.ts finds its .proto
//   files with them) keep pointing at their original place, relative to the bundle: keep dist/ next to proto/.
// - No keepNames: its __name() call on every function created, per request too, costs CPU
//   (docs/benchmark.md). A renamed function shows only in stack traces; `node --enable-source-maps`
//   maps them back to the TypeScript with <outfile>.map.
// - ASCII output without comments, so V8 holds the source as a one-byte string (docs/deploy.md);
//   licence comments go to <outfile>.LEGAL.txt.
// - Any warning (e.g. a require() esbuild cannot resolve) fails the build. Dependencies that build
//   paths from __dirname do so only where the data plane never goes (pino transports, grpc-js channelz).
import { build, type Plugin } from "esbuild";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { DATA_PLANE_BUNDLE, repositoryRoot, SERVICE_ENTRIES } from "../local/service-process";
import { NODE_ESM_BUNDLE } from "./node-esm-bundle";

const IMPORT_META = /\bimport\.meta\.(dirname|filename|url)\b/g;
const USES_IMPORT_META = /\bimport\.meta\.(dirname|filename|url)\b/;

/** Rewrites import.meta.dirname/filename/url in the workspace's own sources to their original place, relative to the bundle. */
function sourceLocation(outfile: string): Plugin {
  return {
    name: "source-location",
    setup(bundle) {
      bundle.onLoad({ filter: /\.[cm]?ts$/ }, async ({ path: file }) => {
        if (file.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const source = await readFile(file, "utf8");
        if (!USES_IMPORT_META.test(source)) return undefined;
        const relativeFile = JSON.stringify(path.relative(path.dirname(outfile), file).split(path.sep).join("/"));
        const original = `__gatewayResolvePath(import.meta.dirname, ${relativeFile})`;
        const contents = source.replace(IMPORT_META, (_match, property: string) =>
          property === "dirname"
            ? `__gatewayDirname(${original})`
            : property === "filename"
              ? original
              : `__gatewayPathToFileURL(${original}).href`,
        );
        return { contents, loader: "ts" };
      });
    },
  };
}

export async function bundleDataPlane(outfile = path.join(repositoryRoot, DATA_PLANE_BUNDLE)): Promise<string> {
  const result = await build({
    absWorkingDir: repositoryRoot,
    entryPoints: [SERVICE_ENTRIES["data-plane"]],
    outfile,
    ...NODE_ESM_BUNDLE,
    // Node's CommonJS require for the bundled CommonJS packages (builtins, in an ES module).
    banner: {
      js: [
        'import { createRequire as __gatewayCreateRequire } from "node:module";',
        'import { dirname as __gatewayDirname, resolve as __gatewayResolvePath } from "node:path";',
        'import { pathToFileURL as __gatewayPathToFileURL } from "node:url";',
        "const require = __gatewayCreateRequire(import.meta.url);",
      ].join(" "),
    },
    legalComments: "external",
    sourcemap: "linked",
    plugins: [sourceLocation(outfile)],
    logLevel: "silent",
  });
  if (result.warnings.length > 0 || result.errors.length > 0) {
    throw new Error(`bundling the data plane: ${[...result.errors, ...result.warnings].map((message) => message.text).join("; ")}`);
  }
  return outfile;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const outfile = await bundleDataPlane(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
  console.log(`data plane bundled: ${path.relative(process.cwd(), outfile)}`);
}
