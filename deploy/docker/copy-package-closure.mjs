// Copies an installed package and the packages it needs at run time (dependencies and the
// optional dependencies installed for this platform) into one flat node_modules folder.
//
//   node deploy/docker/copy-package-closure.mjs <package> <target node_modules>
//
// The images need tsx at run time (the services run TypeScript through `node --import tsx`),
// but tsx is a development dependency of the workspace root, so a production install leaves it
// out. The build stage installs everything from the lockfile; this script lifts exactly the
// lockfile's tsx (and its esbuild, with the esbuild binary package for the build platform) out of
// pnpm's symlinked layout, so the runtime stage can add it next to the production install.
import { cpSync, existsSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";

const [name, target] = process.argv.slice(2);
if (!name || !target) {
  console.error("usage: node copy-package-closure.mjs <package> <target node_modules>");
  process.exit(2);
}

/** Node's lookup: the nearest node_modules/<name> from `fromDirectory` upwards. */
function locate(dependency, fromDirectory) {
  for (let directory = fromDirectory; ; directory = path.dirname(directory)) {
    const candidate = path.join(directory, "node_modules", dependency);
    if (existsSync(path.join(candidate, "package.json"))) return realpathSync(candidate);
    if (path.dirname(directory) === directory) return undefined;
  }
}

const copied = new Map(); // name -> real directory
const pending = [{ dependency: name, from: process.cwd(), optional: false }];
while (pending.length > 0) {
  const { dependency, from, optional } = pending.pop();
  const directory = locate(dependency, from);
  if (!directory) {
    if (optional) continue; // an optional dependency for another platform
    throw new Error(`${dependency} (needed from ${from}) is not installed`);
  }
  const previous = copied.get(dependency);
  if (previous !== undefined) {
    if (previous !== directory) throw new Error(`two versions of ${dependency} in the closure: ${previous} and ${directory}`);
    continue;
  }
  copied.set(dependency, directory);
  const manifest = JSON.parse(readFileSync(path.join(directory, "package.json"), "utf8"));
  // pnpm links a package's dependencies next to it: <store>/<pkg>@<version>/node_modules/<dep>.
  for (const child of Object.keys(manifest.dependencies ?? {})) pending.push({ dependency: child, from: directory, optional: false });
  for (const child of Object.keys(manifest.optionalDependencies ?? {}))
    pending.push({ dependency: child, from: directory, optional: true });
}

for (const [dependency, directory] of copied) {
  cpSync(directory, path.join(target, dependency), { recursive: true, dereference: true });
  console.log(`${dependency}: ${path.relative(process.cwd(), directory)} -> ${path.join(target, dependency)}`);
}
