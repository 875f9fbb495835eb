// Bundles gatewayctl (esbuild) into one executable ES module that runs with plain node anywhere,
// outside the checkout too: `node gatewayctl.mjs <command>`, or `./gatewayctl.mjs` (it has a shebang).
//
//   pnpm build:gatewayctl                      -> dist/gatewayctl.mjs
//   tsx deploy/build/bundle-gatewayctl.ts <outfile>
//
// It must not need the repository's files at run time: the gRPC definitions (@gateway/proto's index,
// which reads its .proto files when imported) are refused in the bundle, so gatewayctl and what it
// imports take the error table from `@gateway/proto/errors` and only types from the index.
import { chmod } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { repositoryRoot } from "../local/service-process";
import { NODE_ESM_BUNDLE } from "./node-esm-bundle";

export const GATEWAYCTL_BUNDLE = "dist/gatewayctl.mjs";
const ENTRY = "services/control-plane/src/cli/gatewayctl.ts";
const PROTO_INDEX = "proto/src/index.ts";

export async function bundleGatewayctl(outfile = path.join(repositoryRoot, GATEWAYCTL_BUNDLE)): Promise<string> {
  const result = await build({
    absWorkingDir: repositoryRoot,
    entryPoints: [ENTRY],
    outfile,
    ...NODE_ESM_BUNDLE,
    banner: {
      js: [
        "#!/usr/bin/env node",
        'import { createRequire as __gatewayCreateRequire } from "node:module"; const require = __gatewayCreateRequire(import.meta.url);',
      ].join("\n"),
    },
    legalComments: "none",
    metafile: true,
    logLevel: "silent",
  });
  const problems = [...result.errors, ...result.warnings].map((message) => message.text);
  if (Object.keys(result.metafile.inputs).includes(PROTO_INDEX))
    problems.push(`${PROTO_INDEX} is in the bundle: it reads .proto files from the checkout; import from @gateway/proto/errors`);
  if (problems.length > 0) throw new Error(`bundling gatewayctl: ${problems.join("; ")}`);
  await chmod(outfile, 0o755);
  return outfile;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const outfile = await bundleGatewayctl(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
  console.log(`gatewayctl bundled: ${path.relative(process.cwd(), outfile)}`);
}
