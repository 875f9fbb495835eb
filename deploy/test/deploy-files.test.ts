// Structural checks of the deployment files (deploy/docker, deploy/compose, deploy/k8s): they
// parse, they agree with each other, with the services' entry points and with the README's
// configuration table. No container runtime or cluster is needed; what these checks cannot see
// (an image build, a real cluster's admission) is listed in docs/deploy.md.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { DATA_PLANE_BUNDLE, DATA_PLANE_NODE_FLAGS, SERVICE_ENTRIES, repositoryRoot } from "../local/service-process";

type Json = Record<string, any>;

const read = (relative: string) => readFileSync(path.join(repositoryRoot, relative), "utf8");
const exists = (relative: string) => existsSync(path.join(repositoryRoot, relative));

function filesUnder(relative: string, suffix: string): string[] {
  const found: string[] = [];
  const walk = (directory: string) => {
    for (const name of readdirSync(path.join(repositoryRoot, directory))) {
      const child = path.join(directory, name);
      if (statSync(path.join(repositoryRoot, child)).isDirectory()) walk(child);
      else if (name.endsWith(suffix)) found.push(child);
    }
  };
  walk(relative);
  return found.sort();
}

// ---------------------------------------------------------------------------------------------
// The README's configuration table: which variables exist, and for which service.
// ---------------------------------------------------------------------------------------------
type ServiceKind = "control plane" | "data plane" | "mock provider";
interface DocumentedVariable {
  pattern: RegExp;
  services: ServiceKind[];
}

function readmeVariables(): DocumentedVariable[] {
  const readme = read("README.md");
  const section = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("\n## ", readme.indexOf("## Configuration") + 1));
  const variables: DocumentedVariable[] = [];
  for (const line of section.split("\n")) {
    if (!line.startsWith("| `")) continue;
    const [names = "", service = ""] = line.split("|").slice(1, 3);
    const services: ServiceKind[] = service.includes("both planes")
      ? ["control plane", "data plane"]
      : (["control plane", "data plane", "mock provider"] as const).filter((kind) => service.includes(kind));
    for (const [, name] of names.matchAll(/`([^`]+)`/g)) {
      const source = name!.replace(/<NAME>/g, "[A-Z0-9_]+");
      variables.push({ pattern: new RegExp(`^${source}$`), services });
    }
  }
  return variables;
}

// Read by the code but documented elsewhere than the README's table; each entry names where.
const DOCUMENTED_ELSEWHERE: { name: string; service: ServiceKind; file: string; evidence: string }[] = [
  // services/mock-provider/README.md documents HOST next to PORT and MOCK_PROVIDER_API_KEY.
  { name: "HOST", service: "mock provider", file: "services/mock-provider/README.md", evidence: "`HOST`" },
  // Not in the README's table yet (the deploy files need it: a replica id per container).
  {
    name: "DATA_PLANE_REPLICA_ID",
    service: "data plane",
    file: "services/data-plane/src/config.ts",
    evidence: "env.DATA_PLANE_REPLICA_ID",
  },
];

const documented = readmeVariables();
function isDocumented(name: string, service: ServiceKind): boolean {
  if (documented.some((variable) => variable.services.includes(service) && variable.pattern.test(name))) return true;
  const elsewhere = DOCUMENTED_ELSEWHERE.find((entry) => entry.name === name && entry.service === service);
  return elsewhere !== undefined && read(elsewhere.file).includes(elsewhere.evidence);
}

// The README's default for a variable (first backticked value of its default column).
function readmeDefault(name: string): string {
  const line = read("README.md")
    .split("\n")
    .find((row) => row.startsWith(`| \`${name}\``));
  const value = line?.split("|")[3]?.match(/`([^`]*)`/)?.[1];
  if (value === undefined) throw new Error(`no README default for ${name}`);
  return value;
}

const SERVICE_OF_TARGET: Record<string, ServiceKind> = {
  "control-plane": "control plane",
  "data-plane": "data plane",
  "mock-provider": "mock provider",
};

// ---------------------------------------------------------------------------------------------
// Dockerfile
// ---------------------------------------------------------------------------------------------
interface Stage {
  name: string;
  instructions: { keyword: string; argument: string }[];
}

/** The Dockerfile's instructions, one a line (continuations joined, comments dropped). */
const dockerfileLines = () =>
  read("deploy/docker/Dockerfile")
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"));

function dockerfileStages(): Stage[] {
  const stages: Stage[] = [];
  for (const line of dockerfileLines()) {
    const [keyword = "", ...rest] = line.split(/\s+/);
    const argument = rest.join(" ");
    if (keyword.toUpperCase() === "FROM") stages.push({ name: argument.split(/\s+AS\s+/i)[1] ?? "", instructions: [] });
    stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), argument });
  }
  return stages;
}

const stages = dockerfileStages();
const stage = (name: string) => {
  const found = stages.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no stage ${name} in deploy/docker/Dockerfile`);
  return found;
};
const instructions = (name: string, keyword: string) =>
  stage(name)
    .instructions.filter((instruction) => instruction.keyword === keyword)
    .map((instruction) => instruction.argument);

function envOfStage(name: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const argument of instructions(name, "ENV")) {
    for (const [, key, value] of argument.matchAll(/([A-Z0-9_]+)=(\S+)/g)) env[key!] = value!;
  }
  return env;
}

describe("deploy/docker/Dockerfile", () => {
  const targets = Object.keys(SERVICE_ENTRIES) as (keyof typeof SERVICE_ENTRIES)[];

  it.each(targets.filter((target) => target !== "data-plane"))(
    "target %s starts the service's entry file, as the launcher does",
    (target) => {
      const command = JSON.parse(instructions(target, "CMD").at(-1) ?? "[]") as string[];
      const entry = command.join(" ").match(/services\/[\w-]+\/src\/[\w./-]+\.ts/)?.[0];
      expect(entry).toBe(SERVICE_ENTRIES[target]);
      expect(exists(entry!)).toBe(true);
      expect(command.join(" ")).toContain("node --import tsx");
    },
  );

  it("target data-plane runs the bundle built from the service's entry file, with the production node flags", () => {
    const command = (JSON.parse(instructions("data-plane", "CMD").at(-1) ?? "[]") as string[]).join(" ");
    expect(command).toContain(`exec node ${DATA_PLANE_NODE_FLAGS.join(" ")} ${DATA_PLANE_BUNDLE}`);
    expect(command).not.toContain("tsx");
    // The bundle comes from the stage that runs the package script, whose build script bundles SERVICE_ENTRIES["data-plane"].
    const copied = instructions("data-plane", "COPY").find((argument) => argument.startsWith("--from=data-plane-bundle"));
    expect(copied).toBe(`--from=data-plane-bundle /app/${path.dirname(DATA_PLANE_BUNDLE)} ${path.dirname(DATA_PLANE_BUNDLE)}`);
    expect(instructions("data-plane-bundle", "RUN")).toContain("pnpm build:data-plane");
    const script = ((JSON.parse(read("package.json")) as Json).scripts as Record<string, string>)["build:data-plane"]!;
    const buildFile = script.replace(/^tsx\s+/, "");
    expect(read(buildFile)).toContain('SERVICE_ENTRIES["data-plane"]');
    expect(read(buildFile)).toContain("DATA_PLANE_BUNDLE");
    // What the bundle needs at run time next to it: the .proto files it loads.
    expect(instructions("data-plane", "COPY")).toContain("proto/gateway proto/gateway");
  });

  it.each(targets)("target %s runs as a numeric non-root user, with a health check and SIGTERM", (target) => {
    const user = instructions(target, "USER").at(-1);
    expect(user).toMatch(/^[1-9]\d*(:\d+)?$/);
    const healthcheck = instructions(target, "HEALTHCHECK").at(-1) ?? "";
    expect(healthcheck).toMatch(target === "mock-provider" ? /\/_mock\/health/ : /\/health/);
    expect(instructions("runtime", "STOPSIGNAL")).toEqual(["SIGTERM"]);
  });

  it.each(targets)("target %s sets only documented variables and exposes the ports it configures", (target) => {
    const env = envOfStage(target);
    for (const name of Object.keys(env)) expect.soft(isDocumented(name, SERVICE_OF_TARGET[target]!), `${target}: ${name}`).toBe(true);
    const exposed = instructions(target, "EXPOSE")
      .flatMap((argument) => argument.split(/\s+/))
      .sort();
    const ports = Object.entries(env)
      .filter(([name]) => /PORT$/.test(name))
      .map(([, value]) => value)
      .sort();
    expect(exposed).toEqual(ports);
  });

  it("copies only paths that exist, and installs from the lockfile", () => {
    for (const current of stages) {
      for (const { keyword, argument } of current.instructions) {
        if (keyword !== "COPY" || argument.startsWith("--from")) continue;
        const sources = argument
          .split(/\s+/)
          .filter((part) => !part.startsWith("--"))
          .slice(0, -1);
        for (const source of sources) expect.soft(exists(source), `COPY ${source}`).toBe(true);
      }
    }
    const installs = stages
      .flatMap((current) => current.instructions)
      .filter((instruction) => instruction.keyword === "RUN" && /pnpm install/.test(instruction.argument));
    expect(installs.length).toBeGreaterThan(0);
    for (const install of installs) expect(install.argument).toContain("--frozen-lockfile");
    const packageManager = (JSON.parse(read("package.json")) as Json).packageManager as string;
    expect(read("deploy/docker/Dockerfile")).toContain(packageManager);
  });

  it("target control-plane holds the console's production build where the admin app serves it from", () => {
    const copied = instructions("control-plane", "COPY").find((argument) => argument.startsWith("--from=console-build"));
    expect(copied).toBe("--from=console-build /app/services/console/dist services/console/dist");
    expect(instructions("console-build", "RUN")).toContain("pnpm build:console");
    expect(read("services/control-plane/src/admin/console-routes.ts")).toContain('"../../../console/dist"');
    // Every workspace package's manifest is in the install's context, or --frozen-lockfile fails on the missing one.
    expect(instructions("workspace", "COPY")).toContain("services/console/package.json services/console/");
  });

  it("has an ignore file next to it that keeps local state out of the context", () => {
    const ignore = read("deploy/docker/Dockerfile.dockerignore").split("\n");
    for (const entry of ["**/node_modules", ".data", "**/.env", "services/control-plane/src/generated"]) expect(ignore).toContain(entry);
  });
});

// ---------------------------------------------------------------------------------------------
// The Node runtime: the images ship the Node major that CI tests on (.ci/run pins its version).
// ---------------------------------------------------------------------------------------------
const IMAGE_NODE_MAJOR = 24; // Node 24 LTS

/** The build arguments declared before the first FROM, with their defaults. */
function dockerfileGlobalArgs(): Record<string, string> {
  const lines = dockerfileLines();
  const firstFrom = lines.findIndex((line) => /^FROM\s/i.test(line));
  const args: Record<string, string> = {};
  for (const line of lines.slice(0, firstFrom)) {
    const [, name, value] = line.match(/^ARG\s+(\w+)=(\S+)$/i) ?? [];
    if (name) args[name] = value!;
  }
  return args;
}

/** The exact version .ci/run installs and runs the suite on. */
const ciNodeVersion = () => read(".ci/run").match(/^NODE_VERSION=(\d+\.\d+\.\d+)$/m)?.[1];

describe("the Node runtime", () => {
  // How a FROM names the build argument (the Dockerfile's ${...} syntax, not a template placeholder).
  const fromNodeImage = `\${NODE_IMAGE}`;
  const baseOf = (current: Stage) => current.instructions[0]!.argument.split(/\s+/)[0]!;

  it(`builds every stage on NODE_IMAGE, whose default is the official Node ${IMAGE_NODE_MAJOR} image`, () => {
    const nodeImage = dockerfileGlobalArgs().NODE_IMAGE ?? "";
    expect(nodeImage).toMatch(new RegExp(`^node:${IMAGE_NODE_MAJOR}(\\.\\d+)*(-[\\w.]+)*$`));
    // Each stage starts from the Node image itself or from a stage defined above it.
    const names = stages.map((current) => current.name);
    for (const [index, current] of stages.entries()) {
      if (baseOf(current) !== fromNodeImage)
        expect(names.slice(0, index), `${current.name} FROM ${baseOf(current)}`).toContain(baseOf(current));
    }
    // Every target ships on the runtime stage, which is the Node image.
    expect(baseOf(stage("runtime"))).toBe(fromNodeImage);
    for (const target of Object.keys(SERVICE_ENTRIES)) expect(baseOf(stage(target)), target).toBe("runtime");
    expect(read("docs/deploy.md")).toContain(`(default \`${nodeImage}\``);
  });

  it(".ci/run pins an exact Node version of the images' major", () => {
    expect(ciNodeVersion()).toMatch(new RegExp(`^${IMAGE_NODE_MAJOR}\\.`));
  });

  // .ci/run sets GATEWAY_TEST_NODE_VERSION to its pinned Node; elsewhere the tests run on whatever Node >= 20.19 is installed.
  it("runs on the Node it was given (under .ci/run, its pin), as do the processes tests spawn", () => {
    const expected = process.env.GATEWAY_TEST_NODE_VERSION ?? process.version;
    if (process.env.GATEWAY_TEST_NODE_VERSION) expect(expected).toBe(`v${ciNodeVersion()}`);
    const [major, minor] = process.version.slice(1).split(".").map(Number);
    expect(major! > 20 || (major === 20 && minor! >= 19), `Node ${process.version} is below the supported 20.19`).toBe(true);
    expect(process.version).toBe(expected);
    const spawned = spawnSync(process.execPath, ["-p", "process.version"], { encoding: "utf8" });
    expect(spawned.stdout.trim()).toBe(expected);
  });
});

// ---------------------------------------------------------------------------------------------
// Kubernetes manifests
// ---------------------------------------------------------------------------------------------
interface Manifest {
  file: string;
  object: Json;
}

const k8sFiles = filesUnder("deploy/k8s", ".yaml");
const allManifests: Manifest[] = k8sFiles.flatMap((file) =>
  parseAllDocuments(read(file))
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors.map((error) => error.message).join("; ")}`);
      return { file, object: document.toJS() as Json };
    })
    .filter((manifest) => manifest.object),
);
// Kustomize patches (staging/) are partial objects, checked on their own; every other check sees
// the full objects only.
const patchFiles = new Set(
  allManifests
    .filter((manifest) => manifest.object.kind === "Kustomization")
    .flatMap(({ file, object }) => ((object.patches ?? []) as Json[]).map((patch) => path.join(path.dirname(file), patch.path as string))),
);
const patches = allManifests.filter((manifest) => patchFiles.has(manifest.file));
const manifests = allManifests.filter((manifest) => !patchFiles.has(manifest.file));
const kindOf = (kind: string) => manifests.filter((manifest) => manifest.object.kind === kind);
const objects = (kind: string) => kindOf(kind).map((manifest) => manifest.object);
const named = (kind: string, name: string) => {
  const found = objects(kind).find((object) => object.metadata?.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};

const workloads = [...kindOf("Deployment"), ...kindOf("Job")];
const podSpec = (object: Json): Json => object.spec.template.spec;
const containers = (object: Json): Json[] => podSpec(object).containers;

/** Variable names a container receives: env entries plus the keys of envFrom ConfigMaps and Secrets. */
function containerEnvironment(container: Json): Map<string, string | undefined> {
  const environment = new Map<string, string | undefined>();
  for (const source of (container.envFrom ?? []) as Json[]) {
    const reference = source.configMapRef ?? source.secretRef;
    const object = named(source.configMapRef ? "ConfigMap" : "Secret", reference.name as string);
    for (const [key, value] of Object.entries((object.data ?? object.stringData ?? {}) as Record<string, string>))
      environment.set(key, value);
  }
  for (const entry of (container.env ?? []) as Json[]) environment.set(entry.name as string, entry.value as string | undefined);
  return environment;
}

function serviceOfImage(image: string): ServiceKind {
  const target = image.split("/").pop()!.split(":")[0]!;
  const service = SERVICE_OF_TARGET[target];
  if (!service) throw new Error(`image ${image} is not one of the Dockerfile's targets`);
  return service;
}

describe("deploy/k8s", () => {
  it("parses, and every object has an apiVersion, a kind, a name and the namespace", () => {
    expect(k8sFiles.length).toBeGreaterThan(5);
    for (const { file, object } of manifests) {
      expect.soft(object.apiVersion, file).toBeTruthy();
      expect.soft(object.kind, file).toBeTruthy();
      if (object.kind === "Kustomization") continue;
      expect.soft(object.metadata?.name, file).toBeTruthy();
      if (object.kind !== "Namespace") expect.soft(object.metadata?.namespace, `${file} ${object.metadata?.name}`).toBe("model-gateway");
    }
  });

  it("kustomizations name files that exist, and patches patch objects that exist", () => {
    for (const { file, object } of kindOf("Kustomization")) {
      const directory = path.dirname(file);
      expect(
        ((object.patches ?? []) as Json[]).every((patch) => exists(path.join(directory, patch.path as string))),
        `${file}: patches`,
      ).toBe(true);
      for (const resource of (object.resources ?? []) as string[]) {
        const target = path.join(directory, resource);
        expect
          .soft(exists(target) && (resource.endsWith(".yaml") || exists(path.join(target, "kustomization.yaml"))), `${file}: ${resource}`)
          .toBe(true);
      }
      for (const patch of (object.patches ?? []) as Json[]) {
        const patchFile = path.join(directory, patch.path as string);
        for (const { object: patched } of patches.filter((manifest) => manifest.file === patchFile)) {
          expect(() => named(patched.kind as string, patched.metadata.name as string)).not.toThrow();
        }
      }
    }
    // Every file of base/ is in its kustomization; secrets.yaml (placeholders) is in none, or
    // `kubectl apply -k` would overwrite the real Secrets.
    const base = kindOf("Kustomization").find(({ file }) => file === "deploy/k8s/base/kustomization.yaml")!;
    const listed = new Set(((base.object.resources ?? []) as string[]).map((resource) => path.join("deploy/k8s/base", resource)));
    for (const file of k8sFiles.filter(
      (candidate) => path.dirname(candidate) === "deploy/k8s/base" && !candidate.endsWith("kustomization.yaml"),
    )) {
      expect.soft(listed.has(file), `${file} is not in deploy/k8s/base/kustomization.yaml`).toBe(true);
    }
    for (const { file, object } of kindOf("Kustomization")) {
      const resources = ((object.resources ?? []) as string[]).map((resource) => path.join(path.dirname(file), resource));
      expect(resources, file).not.toContain("deploy/k8s/secrets.yaml");
    }
  });

  it.each(workloads.map(({ object }) => [`${object.kind} ${object.metadata.name}`, object] as const))(
    "%s runs as non-root without privileges",
    (_label, object) => {
      const pod = podSpec(object);
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      expect(pod.securityContext.seccompProfile?.type).toBe("RuntimeDefault");
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const container of containers(object)) {
        expect(container.securityContext.allowPrivilegeEscalation).toBe(false);
        expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
        expect(container.securityContext.capabilities.drop).toEqual(["ALL"]);
        // A read-only root needs a writable /tmp for tsx's cache.
        expect((container.volumeMounts as Json[]).map((mount) => mount.mountPath)).toContain("/tmp");
      }
    },
  );

  it.each(workloads.map(({ object }) => [`${object.kind} ${object.metadata.name}`, object] as const))(
    "%s has resource requests and limits",
    (_label, object) => {
      for (const container of containers(object)) {
        for (const bound of ["requests", "limits"]) {
          for (const resource of ["cpu", "memory"]) expect(container.resources?.[bound]?.[resource], `${bound}.${resource}`).toBeTruthy();
        }
      }
    },
  );

  it.each(objects("Deployment").map((object) => [object.metadata.name as string, object] as const))(
    "Deployment %s has readiness and liveness probes on its own ports",
    (_name, object) => {
      for (const container of containers(object)) {
        const ports = new Set(((container.ports ?? []) as Json[]).flatMap((port) => [port.name, port.containerPort]));
        for (const probe of ["readinessProbe", "livenessProbe"]) {
          expect(container[probe], probe).toBeTruthy();
          const port = container[probe].httpGet?.port ?? container[probe].tcpSocket?.port;
          expect(ports.has(port), `${probe} port ${port}`).toBe(true);
        }
      }
    },
  );

  it.each(
    objects("Service")
      .filter((service) => service.spec.type !== "ExternalName")
      .map((service) => [service.metadata.name as string, service] as const),
  )("Service %s selects a Deployment whose containers have its target ports", (_name, service) => {
    const selector = service.spec.selector as Record<string, string>;
    const matches = objects("Deployment").filter((deployment) =>
      Object.entries(selector).every(([key, value]) => deployment.spec.template.metadata.labels[key] === value),
    );
    expect(matches).toHaveLength(1);
    const containerPorts = containers(matches[0]!).flatMap((container) => (container.ports ?? []) as Json[]);
    for (const port of service.spec.ports as Json[]) {
      const target = port.targetPort ?? port.port;
      expect(
        containerPorts.some((containerPort) => containerPort.name === target || containerPort.containerPort === target),
        `targetPort ${target}`,
      ).toBe(true);
    }
  });

  it("container ports agree with the configured ports", () => {
    const expectations: [string, string, string][] = [
      ["control-plane", "grpc", "CONTROL_PLANE_GRPC_PORT"],
      ["control-plane", "admin", "CONTROL_PLANE_ADMIN_PORT"],
      ["control-plane", "metrics", "METRICS_PORT"],
      ["data-plane", "http", "DATA_PLANE_PORT"],
      ["data-plane", "metrics", "METRICS_PORT"],
      ["mock-provider", "http", "PORT"],
    ];
    for (const [deployment, portName, variable] of expectations) {
      const container = containers(named("Deployment", deployment))[0]!;
      const port = (container.ports as Json[]).find((candidate) => candidate.name === portName)!;
      expect(String(port.containerPort), `${deployment} ${portName}`).toBe(containerEnvironment(container).get(variable));
    }
    expect(named("ConfigMap", "data-plane-config").data.CONTROL_PLANE_ADDRESS).toBe(
      `control-plane:${(named("Service", "control-plane").spec.ports as Json[]).find((port) => port.name === "grpc")!.port}`,
    );
  });

  it.each(workloads.map(({ object }) => [`${object.kind} ${object.metadata.name}`, object] as const))(
    "%s receives only variables the README documents for its service",
    (_label, object) => {
      for (const container of containers(object)) {
        const service = serviceOfImage(container.image as string);
        for (const name of containerEnvironment(container).keys())
          expect.soft(isDocumented(name, service), `${container.name}: ${name}`).toBe(true);
      }
    },
  );

  it("the staging overlay adds only documented data-plane variables and keeps the base's sources", () => {
    const stagingConfig = [...patches, ...manifests.filter((manifest) => manifest.file.startsWith("deploy/k8s/staging/"))].filter(
      ({ object }) => ["ConfigMap", "Secret"].includes(object.kind as string),
    );
    expect(stagingConfig.length).toBeGreaterThan(0);
    for (const { object } of stagingConfig) {
      for (const name of Object.keys((object.data ?? object.stringData ?? {}) as Json))
        expect.soft(isDocumented(name, "data plane"), name).toBe(true);
    }
    for (const { object } of patches.filter((manifest) => manifest.object.kind === "Deployment")) {
      const base = named("Deployment", object.metadata.name as string);
      for (const container of containers(object)) {
        const baseContainer = containers(base).find((candidate) => candidate.name === container.name)!;
        // envFrom is replaced whole by a strategic merge: the patch must repeat the base's sources.
        if (container.envFrom) expect(container.envFrom).toEqual(expect.arrayContaining(baseContainer.envFrom as Json[]));
        for (const source of (container.envFrom ?? []) as Json[]) {
          if (source.secretRef) expect(() => named("Secret", source.secretRef.name as string)).not.toThrow();
          if (source.configMapRef) expect(() => named("ConfigMap", source.configMapRef.name as string)).not.toThrow();
        }
      }
    }
  });

  it("the control plane has the secrets it requires; the data planes do not get the database or admin token", () => {
    const controlPlane = containerEnvironment(containers(named("Deployment", "control-plane"))[0]!);
    for (const name of ["DATABASE_URL", "GATEWAY_ADMIN_TOKEN", "GATEWAY_INTERNAL_TOKEN"]) expect(controlPlane.has(name), name).toBe(true);
    const dataPlane = containerEnvironment(containers(named("Deployment", "data-plane"))[0]!);
    for (const name of ["GATEWAY_INTERNAL_TOKEN", "REDIS_URL", "CONTROL_PLANE_ADDRESS", "DATA_PLANE_REPLICA_ID"])
      expect(dataPlane.has(name), name).toBe(true);
    for (const name of ["DATABASE_URL", "GATEWAY_ADMIN_TOKEN"]) expect(dataPlane.has(name), name).toBe(false);
  });

  it("every Secret and ConfigMap key a workload references exists", () => {
    for (const { object } of workloads) {
      for (const container of containers(object)) {
        for (const entry of (container.env ?? []) as Json[]) {
          const reference = entry.valueFrom?.secretKeyRef ?? entry.valueFrom?.configMapKeyRef;
          if (!reference) continue;
          const source = named(entry.valueFrom.secretKeyRef ? "Secret" : "ConfigMap", reference.name as string);
          expect
            .soft(Object.keys((source.data ?? source.stringData ?? {}) as Json), `${object.metadata.name}: ${entry.name}`)
            .toContain(reference.key);
        }
      }
    }
  });

  it("the base Secrets hold placeholders only", () => {
    for (const { file, object } of kindOf("Secret").filter((manifest) => manifest.file === "deploy/k8s/secrets.yaml")) {
      for (const [key, value] of Object.entries(object.stringData as Record<string, string>))
        expect.soft(value, `${file} ${key}`).toMatch(/REPLACE_ME/);
      expect(object.data, "no base64 data: placeholders are readable").toBeUndefined();
    }
  });

  it("the HorizontalPodAutoscaler scales the data-plane Deployment on CPU, from at least 2", () => {
    const autoscalers = objects("HorizontalPodAutoscaler");
    expect(autoscalers).toHaveLength(1);
    const autoscaler = autoscalers[0]!;
    expect(autoscaler.spec.scaleTargetRef).toMatchObject({ apiVersion: "apps/v1", kind: "Deployment", name: "data-plane" });
    expect(named("Deployment", "data-plane")).toBeTruthy();
    expect(autoscaler.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(autoscaler.spec.maxReplicas).toBeGreaterThan(autoscaler.spec.minReplicas);
    expect((autoscaler.spec.metrics as Json[]).some((metric) => metric.type === "Resource" && metric.resource.name === "cpu")).toBe(true);
    // The autoscaler owns the count: a replicas field would be reset on every apply.
    expect(named("Deployment", "data-plane").spec.replicas).toBeUndefined();
    // CPU utilisation is relative to the request.
    expect(containers(named("Deployment", "data-plane"))[0]!.resources.requests.cpu).toBeTruthy();
  });

  it("every replicated Deployment has a PodDisruptionBudget", () => {
    for (const name of ["control-plane", "data-plane"]) {
      const labels = named("Deployment", name).spec.template.metadata.labels as Record<string, string>;
      const budgets = objects("PodDisruptionBudget").filter((budget) =>
        Object.entries(budget.spec.selector.matchLabels as Record<string, string>).every(([key, value]) => labels[key] === value),
      );
      expect(budgets, name).toHaveLength(1);
    }
  });

  it("the data plane's grace period covers the preStop pause and its whole drain", () => {
    const deployment = named("Deployment", "data-plane");
    const container = containers(deployment)[0]!;
    const environment = containerEnvironment(container);
    const drainMs = Number(environment.get("DRAIN_TIMEOUT_MS") ?? readmeDefault("DRAIN_TIMEOUT_MS"));
    const disconnectMs = Number(environment.get("CLIENT_DISCONNECT_DRAIN_MS") ?? readmeDefault("CLIENT_DISCONNECT_DRAIN_MS"));
    const preStop = (container.lifecycle?.preStop?.exec?.command ?? []) as string[];
    const pauseSeconds = preStop[0] === "sleep" ? Number(preStop[1]) : 0;
    const grace = podSpec(deployment).terminationGracePeriodSeconds as number;
    expect(grace).toBeGreaterThan(drainMs / 1000);
    // The drain (in-flight requests), then the settle flush (drain + disconnect drain).
    expect(grace).toBeGreaterThan(pauseSeconds + (2 * drainMs + disconnectMs) / 1000);
  });

  it("the control plane's grace period covers the preStop pause and its gRPC drain", () => {
    const deployment = named("Deployment", "control-plane");
    const container = containers(deployment)[0]!;
    const drainMs = Number(containerEnvironment(container).get("DRAIN_TIMEOUT_MS") ?? readmeDefault("DRAIN_TIMEOUT_MS"));
    const preStop = (container.lifecycle?.preStop?.exec?.command ?? []) as string[];
    const pauseSeconds = preStop[0] === "sleep" ? Number(preStop[1]) : 0;
    expect(podSpec(deployment).terminationGracePeriodSeconds).toBeGreaterThan(pauseSeconds + drainMs / 1000);
  });

  it("the migration Job runs what `pnpm db:migrate` runs, with the control-plane image and DATABASE_URL", () => {
    const scripts = (JSON.parse(read("package.json")) as Json).scripts as Record<string, string>;
    const migrateFile = scripts["db:migrate"]!.replace(/^tsx\s+/, "");
    expect(exists(migrateFile)).toBe(true);
    const jobs = objects("Job");
    expect(jobs).toHaveLength(1);
    const container = containers(jobs[0]!)[0]!;
    expect(container.command).toEqual(["node", "--import", "tsx", migrateFile]);
    expect(serviceOfImage(container.image as string)).toBe("control plane");
    expect(containerEnvironment(container).has("DATABASE_URL")).toBe(true);
  });

  it("network policies close every port but the ones named, to the sources named; none is left closed by mistake", () => {
    const policies = kindOf("NetworkPolicy").map(({ object }) => object);
    const deployments = kindOf("Deployment").filter(({ file }) => file.startsWith("deploy/k8s/base/"));
    const labels = (deployment: Json): Record<string, string> => deployment.spec.template.metadata.labels;
    const matches = (selector: Record<string, string>, labelled: Record<string, string>) =>
      Object.entries(selector).every(([key, value]) => labelled[key] === value);
    for (const { object: deployment } of deployments) {
      const policy = policies.find((candidate) => matches(candidate.spec.podSelector.matchLabels, labels(deployment)));
      expect.soft(policy, `${deployment.metadata.name} has no NetworkPolicy`).toBeTruthy();
      if (!policy) continue;
      const portNames = new Set(
        containers(deployment).flatMap((container) => ((container.ports ?? []) as Json[]).map((port) => port.name)),
      );
      const ruled = ((policy.spec.ingress ?? []) as Json[]).flatMap((rule) => (rule.ports as Json[]).map((port) => port.port as string));
      // Every port a rule names is a container port, and every container port is named by a rule.
      expect.soft(new Set(ruled), deployment.metadata.name).toEqual(portNames);
    }
    const controlPlane = named("NetworkPolicy", "control-plane");
    const sourcesOf = (port: string) =>
      ((controlPlane.spec.ingress as Json[]).find((rule) => (rule.ports as Json[]).some((entry) => entry.port === port))?.from ??
        []) as Json[];
    // gRPC from the data-plane pods only.
    expect(sourcesOf("grpc")).toEqual([{ podSelector: { matchLabels: { "app.kubernetes.io/name": "data-plane" } } }]);
    expect(labels(named("Deployment", "data-plane"))["app.kubernetes.io/name"]).toBe("data-plane");
    for (const source of sourcesOf("admin"))
      expect(source.podSelector?.matchLabels ?? source.namespaceSelector?.matchLabels).toEqual({ "gateway.admin-access": "true" });
    // The data plane's public port is open to all: its rule names no sources.
    const publicRule = (named("NetworkPolicy", "data-plane").spec.ingress as Json[]).find((rule) =>
      (rule.ports as Json[]).some((entry) => entry.port === "http"),
    );
    expect(publicRule?.from).toBeUndefined();
  });

  it("the ServiceMonitor scrapes both planes' metrics ports, which their own Services do not expose", () => {
    const monitor = named("ServiceMonitor", "model-gateway");
    const metricsServices = kindOf("Service")
      .map(({ object }) => object)
      .filter((service) =>
        Object.entries(monitor.spec.selector.matchLabels as Record<string, string>).every(
          ([key, value]) => service.metadata.labels?.[key] === value,
        ),
      );
    expect(metricsServices.map((service) => service.metadata.name).sort()).toEqual(["control-plane-metrics", "data-plane-metrics"]);
    for (const service of metricsServices) {
      const plane = service.spec.selector["app.kubernetes.io/name"] as string;
      const container = containers(named("Deployment", plane))[0]!;
      const metricsPort = (container.ports as Json[]).find((port) => port.name === "metrics");
      expect(metricsPort, plane).toBeTruthy();
      expect(service.spec.ports[0].targetPort).toBe("metrics");
      expect(String(service.spec.ports[0].port)).toBe(containerEnvironment(container).get("METRICS_PORT"));
      expect(monitor.spec.endpoints[0].port).toBe(service.spec.ports[0].name);
      // The plane's own Service keeps /metrics off: it does not name the metrics port.
      const own = named("Service", plane);
      expect((own.spec.ports as Json[]).map((port) => port.targetPort ?? port.name)).not.toContain("metrics");
    }
  });

  it("images are the Dockerfile's targets", () => {
    for (const { object } of workloads) {
      for (const container of containers(object)) {
        const target = (container.image as string).split("/").pop()!.split(":")[0]!;
        expect(stages.map((candidate) => candidate.name)).toContain(target);
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Compose
// ---------------------------------------------------------------------------------------------
const compose = parse(read("deploy/compose/compose.yaml"), { merge: true }) as Json;
const composeServices = compose.services as Record<string, Json>;
const gatewayServices = Object.entries(composeServices).filter(([, service]) => service.build);

function composeEnvironment(service: Json): Record<string, string> {
  const environment = service.environment ?? {};
  if (Array.isArray(environment)) return Object.fromEntries(environment.map((entry: string) => entry.split(/=(.*)/s).slice(0, 2)));
  return environment as Record<string, string>;
}

function seconds(duration: string): number {
  const match = /^(\d+)(ms|s|m)?$/.exec(duration);
  if (!match) throw new Error(`unknown duration ${duration}`);
  const value = Number(match[1]);
  return match[2] === "ms" ? value / 1000 : match[2] === "m" ? value * 60 : value;
}

describe("deploy/compose", () => {
  it("builds every gateway service from a Dockerfile target", () => {
    expect(gatewayServices.map(([name]) => name).sort()).toEqual(["control-plane", "data-plane", "mock"]);
    for (const [, service] of gatewayServices) {
      expect(path.join("deploy/compose", service.build.context as string, service.build.dockerfile as string)).toBe(
        path.join("deploy/docker/Dockerfile"),
      );
      expect(stage(service.build.target as string)).toBeTruthy();
    }
  });

  it.each(gatewayServices)("%s sets only variables the README documents for it", (_name, service) => {
    const kind = SERVICE_OF_TARGET[service.build.target as string]!;
    for (const name of Object.keys(composeEnvironment(service))) expect.soft(isDocumented(name, kind), name).toBe(true);
  });

  it("every service has a health check, and dependencies wait for health", () => {
    for (const [name, service] of Object.entries(composeServices)) {
      expect.soft(service.healthcheck?.test, `${name} healthcheck`).toBeTruthy();
      for (const [dependency, condition] of Object.entries((service.depends_on ?? {}) as Record<string, Json>)) {
        expect.soft(composeServices[dependency], `${name} depends on ${dependency}`).toBeTruthy();
        expect.soft(condition.condition, `${name} -> ${dependency}`).toBe("service_healthy");
      }
    }
  });

  it("wires the planes, Redis, PostgreSQL and the mock together", () => {
    const controlPlane = composeEnvironment(composeServices["control-plane"]!);
    const dataPlane = composeEnvironment(composeServices["data-plane"]!);
    const mock = composeEnvironment(composeServices.mock!);
    expect(controlPlane.DATABASE_URL).toMatch(/@postgres:5432\//);
    expect(dataPlane.CONTROL_PLANE_ADDRESS).toBe(`control-plane:${controlPlane.CONTROL_PLANE_GRPC_PORT}`);
    expect(dataPlane.REDIS_URL).toMatch(/^redis:\/\/redis:6379/);
    expect(dataPlane.GATEWAY_INTERNAL_TOKEN).toBe(controlPlane.GATEWAY_INTERNAL_TOKEN);
    for (const vendor of ["OPENAI", "OPENROUTER", "ANTHROPIC"]) expect(dataPlane[`${vendor}_BASE_URL`]).toBe(`http://mock:${mock.PORT}/v1`);
    expect(dataPlane.GOOGLE_BASE_URL).toBe(`http://mock:${mock.PORT}/v1beta`);
    for (const vendor of ["OPENAI", "OPENROUTER", "ANTHROPIC", "GOOGLE"])
      expect(dataPlane[`${vendor}_API_KEY`]).toBe(mock.MOCK_PROVIDER_API_KEY);
    expect(controlPlane.CONTROL_PLANE_HOST).toBe("0.0.0.0");
    expect(dataPlane.DATA_PLANE_HOST).toBe("0.0.0.0");
    expect(mock.HOST).toBe("0.0.0.0");
  });

  it("runs several data planes behind the load balancer; stop grace periods cover the drains", () => {
    const dataPlane = composeServices["data-plane"]!;
    expect(dataPlane.deploy.replicas).toBeGreaterThanOrEqual(2);
    expect(dataPlane.ports, "data planes are reached through the load balancer only").toBeUndefined();
    const environment = composeEnvironment(dataPlane);
    const drainMs = Number(environment.DRAIN_TIMEOUT_MS ?? readmeDefault("DRAIN_TIMEOUT_MS"));
    const disconnectMs = Number(environment.CLIENT_DISCONNECT_DRAIN_MS ?? readmeDefault("CLIENT_DISCONNECT_DRAIN_MS"));
    expect(seconds(dataPlane.stop_grace_period as string)).toBeGreaterThan((2 * drainMs + disconnectMs) / 1000);
    const controlPlane = composeServices["control-plane"]!;
    const controlPlaneDrainMs = Number(composeEnvironment(controlPlane).DRAIN_TIMEOUT_MS ?? readmeDefault("DRAIN_TIMEOUT_MS"));
    expect(seconds(controlPlane.stop_grace_period as string)).toBeGreaterThan(controlPlaneDrainMs / 1000);
    const balancer = composeServices.lb!;
    expect((balancer.depends_on as Json)["data-plane"]).toBeTruthy();
    const mounted = (balancer.volumes as string[]).map((volume) => volume.split(":")[0]!);
    for (const source of mounted) expect(exists(path.join("deploy/compose", source))).toBe(true);
  });

  it("the load balancer streams: health-checked replicas, long timeouts, no buffering or compression", () => {
    const config = read("deploy/compose/haproxy.cfg");
    const dataPlanePort = composeEnvironment(composeServices["data-plane"]!).DATA_PLANE_PORT;
    expect(config).toMatch(new RegExp(`server-template\\s+\\S+\\s+\\d+\\s+data-plane:${dataPlanePort}\\s.*check`));
    expect(config).toMatch(/option httpchk GET \/health/);
    expect(config).not.toMatch(/^\s*(compression|option http-buffer-request)/m);
    // A non-streamed answer may wait UPSTREAM_HEADERS_TIMEOUT_MS for its first byte.
    const headersTimeoutSeconds = Number(readmeDefault("UPSTREAM_HEADERS_TIMEOUT_MS")) / 1000;
    for (const side of ["client", "server"]) {
      const value = new RegExp(`timeout ${side}\\s+(\\d+)(m|s)`).exec(config);
      expect(value, `timeout ${side}`).toBeTruthy();
      expect(Number(value![1]) * (value![2] === "m" ? 60 : 1)).toBeGreaterThan(headersTimeoutSeconds);
    }
  });

  it("every required variable of the compose file is in .env.example", () => {
    const required = new Set([...read("deploy/compose/compose.yaml").matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((match) => match[1]!));
    const example = new Set([...read("deploy/compose/.env.example").matchAll(/^([A-Z0-9_]+)=/gm)].map((match) => match[1]!));
    expect([...required].filter((name) => !example.has(name))).toEqual([]);
    expect(required.size).toBeGreaterThan(0);
  });
});
