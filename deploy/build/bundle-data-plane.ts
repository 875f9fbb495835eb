// Bundles the data plane for production: services/data-plane/src/server.ts, @gateway/proto and every
// npm dependency into one ES module (esbuild), run by plain node. Under tsx the data plane carries the
// loader (a hooks thread with its own V8 heap, esbuild and per-module source maps): about 45 MB of its
// RSS. The images, compose, Kubernetes and the benchmark run this bundle (docs/deploy.md);
// `pnpm start` and the tests keep running the TypeScript through tsx.
//
//   pnpm build:data-plane                      -> dist/data-plane.mjs (+ .map, + .LEGAL.txt)
//   tsx deploy/build/bundle-data-plane.ts <outfile>
//
// - Paths: the one source file that locates files next to itself (proto/src/index.ts, the .proto
//   files) gets its import.meta.dirname/filename/url rewritten to its own place relative to the
//   bundle, so the bundle must keep that relative place (dist/ next to proto/, as in the image).
// - Names: no keepNames. It wraps every creation of a named function or class in a __name() call
//   (Object.defineProperty), closures made per request included: in an interleaved A/B at
//   concurrency 64 the data plane took about 10% more CPU per request with it (docs/benchmark.md).
//   Scope hoisting renames clashing top-level identifiers (a `2` suffix); today that hits a few of
//   OpenTelemetry's API classes and the RESP decoder's functions, none of the gateway's own (its error
//   types in logs keep their names). A renamed `name` shows only in stack traces, which
//   `node --enable-source-maps` maps back to the TypeScript.
// - Comments and whitespace are dropped: the source is then ASCII and V8 keeps it as a one-byte
//   string (a comment with one non-ASCII character makes the whole 4 MB source two-byte: 8.6 MB of
//   heap). Licence comments go to <outfile>.LEGAL.txt; a source map to <outfile>.map (read only with
//   `node --enable-source-maps`, for stack traces against the TypeScript).
// - A warning (e.g. a require() esbuild cannot resolve) fails the build.
// - CommonJS dependencies that build a path from __dirname do so only in code paths the data plane
//   does not take (pino transports, grpc-js channelz and ORCA load reports, ioredis's
//   showFriendlyErrorStack); there __dirname is undefined in the bundle.
import { build, type Plugin } from "esbuild";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { DATA_PLANE_BUNDLE, repositoryRoot, SERVICE_ENTRIES } from "../local/service-process";

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
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20.19",
    // Node's CommonJS require for the bundled CommonJS packages (builtins, in an ES module).
    banner: {
      js: [
        'import { createRequire as __gatewayCreateRequire } from "node:module";',
        'import { dirname as __gatewayDirname, resolve as __gatewayResolvePath } from "node:path";',
        'import { pathToFileURL as __gatewayPathToFileURL } from "node:url";',
        "const require = __gatewayCreateRequire(import.meta.url);",
      ].join(" "),
    },
    minifyWhitespace: true,
    legalComments: "external",
    sourcemap: "linked",
    charset: "ascii",
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
