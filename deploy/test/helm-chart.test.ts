// The Helm chart (deploy/helm/model-gateway) through the real Helm CLI (deploy/helm/helm-binary.ts):
// `helm lint --strict`, the values schema, and `helm template` compared object by object with
// deploy/k8s (base + monitoring + migrate), which deploy-files.test.ts checks on its own.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { helmBinary } from "../helm/helm-binary";
import { repositoryRoot } from "../local/service-process";

type Json = Record<string, any>;

const CHART = path.join(repositoryRoot, "deploy/helm/model-gateway");
const NAMESPACE = "model-gateway";
// Release "model-gateway" contains the chart's name, so the fullname is the release name.
const RELEASE = "model-gateway";

// Helm's own state (repositories, plugins, cache) in a directory of the test's, not the user's.
const helmHome = mkdtempSync(path.join(tmpdir(), "helm-chart-test-"));
afterAll(() => rmSync(helmHome, { recursive: true, force: true }));

function helm(args: string[]) {
  const result = spawnSync(helmBinary(), args, {
    encoding: "utf8",
    env: {
      ...process.env,
      HELM_CACHE_HOME: path.join(helmHome, "cache"),
      HELM_CONFIG_HOME: path.join(helmHome, "config"),
      HELM_DATA_HOME: path.join(helmHome, "data"),
    },
  });
  if (result.error) throw result.error;
  return { status: result.status, output: `${result.stdout}${result.stderr}`, stdout: result.stdout };
}

let valuesFiles = 0;
function valuesFile(values: Json): string {
  valuesFiles += 1;
  const file = path.join(helmHome, `values-${valuesFiles}.json`);
  writeFileSync(file, JSON.stringify(values));
  return file;
}

/** `helm template` with these values over values.yaml; the rendered objects. */
function render(values: Json = {}, release = RELEASE): Json[] {
  const result = helm(["template", release, CHART, "--namespace", NAMESPACE, "--values", valuesFile(values)]);
  if (result.status !== 0) throw new Error(`helm template failed: ${result.output}`);
  return parseAllDocuments(result.stdout)
    .map((document) => document.toJS() as Json | null)
    .filter((object): object is Json => object !== null);
}

/** Helm's error for values it refuses (schema or a template's `fail`), or "" when it renders. */
function refusal(values: Json): string {
  const result = helm(["template", RELEASE, CHART, "--namespace", NAMESPACE, "--values", valuesFile(values)]);
  return result.status === 0 ? "" : result.output;
}

const find = (objects: Json[], kind: string, name: string): Json => {
  const found = objects.find((object) => object.kind === kind && object.metadata?.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in the render`);
  return found;
};
const ofKind = (objects: Json[], kind: string) => objects.filter((object) => object.kind === kind);
const containers = (workload: Json): Json[] => workload.spec.template.spec.containers;
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);

// deploy/k8s's objects as `kubectl apply -k` applies them for base, monitoring and migrate.
const k8sObjects: Json[] = ["deploy/k8s/base", "deploy/k8s/monitoring", "deploy/k8s/migrate"].flatMap((directory) =>
  readdirSync(path.join(repositoryRoot, directory))
    .filter((file) => file.endsWith(".yaml") && file !== "kustomization.yaml")
    .flatMap((file) =>
      parseAllDocuments(readFileSync(path.join(repositoryRoot, directory, file), "utf8")).map((document) => document.toJS() as Json),
    ),
);

// The chart's object names: the release's fullname before deploy/k8s's names. External services
// keep the names the Secrets' URLs use.
const chartName = (k8sName: string): string =>
  k8sName === "model-gateway"
    ? RELEASE
    : k8sName === "gateway-migrate"
      ? `${RELEASE}-migrate`
      : ["postgres", "redis"].includes(k8sName)
        ? k8sName
        : `${RELEASE}-${k8sName}`;

// What Helm adds by design and deploy/k8s has not: release labels (also in selectors, so that two
// releases in one namespace select only their own pods), the config checksum that rolls pods on a
// ConfigMap change, and the hook annotations of the migration Job.
const HELM_LABELS = ["app.kubernetes.io/instance", "app.kubernetes.io/managed-by", "app.kubernetes.io/version", "helm.sh/chart"];
const HELM_ANNOTATIONS = /^(checksum\/config|helm\.sh\/hook.*)$/;

/** A rendered object in deploy/k8s's terms: Helm's additions removed and names mapped back. */
function asK8s(value: unknown, names: Map<string, string>): unknown {
  if (typeof value === "string") {
    const [host, port] = value.split(":");
    if (port !== undefined && names.has(host!)) return `${names.get(host!)}:${port}`;
    return names.get(value) ?? value;
  }
  if (Array.isArray(value)) return value.map((item) => asK8s(item, names));
  if (value === null || typeof value !== "object") return value;
  const result: Json = {};
  for (const [key, item] of Object.entries(value)) {
    if (HELM_LABELS.includes(key) || HELM_ANNOTATIONS.test(key)) continue;
    const mapped = asK8s(item, names);
    if (key === "annotations" && Object.keys(mapped as Json).length === 0) continue;
    result[key] = mapped;
  }
  return result;
}

// Values under which the chart renders everything deploy/k8s has: the ServiceMonitor (off by
// default: it needs the Prometheus Operator's CRD) and base's placeholder ExternalName Services.
const EVERYTHING = {
  serviceMonitor: { enabled: true },
  externalServices: { postgres: "postgres.REPLACE-ME.example.com", redis: "redis.REPLACE-ME.example.com" },
};

describe("deploy/helm/model-gateway", () => {
  it("passes `helm lint --strict`, with the default values and with every optional object on", () => {
    for (const values of [{}, EVERYTHING, { dataPlane: { autoscaling: { enabled: false } }, networkPolicy: { enabled: false } }]) {
      const result = helm(["lint", "--strict", CHART, "--namespace", NAMESPACE, "--values", valuesFile(values)]);
      expect(result.status, result.output).toBe(0);
      expect(result.output).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    }
  });

  it("renders deploy/k8s's base, monitoring and migrate objects, field for field (the Namespace aside)", () => {
    const rendered = render(EVERYTHING);
    // The release's namespace is made by `helm install --create-namespace` or beforehand (docs/deploy.md, "Helm").
    const expected = k8sObjects.filter((object) => object.kind !== "Namespace");
    const names = new Map(expected.flatMap((object) => [[chartName(object.metadata.name as string), object.metadata.name as string]]));
    expect(rendered.map((object) => `${object.kind} ${object.metadata.name}`).sort()).toEqual(
      expected.map((object) => `${object.kind} ${chartName(object.metadata.name as string)}`).sort(),
    );
    for (const object of expected) {
      const counterpart = find(rendered, object.kind as string, chartName(object.metadata.name as string));
      expect.soft(asK8s(counterpart, names), `${object.kind} ${object.metadata.name}`).toEqual(object);
    }
  });

  it("by default: no ServiceMonitor, no ExternalName Service, no Secret; migrations run as a pre-install and pre-upgrade hook", () => {
    const rendered = render();
    expect(ofKind(rendered, "ServiceMonitor")).toEqual([]);
    expect(ofKind(rendered, "Service").filter((service) => service.spec.type === "ExternalName")).toEqual([]);
    expect(ofKind(rendered, "Secret")).toEqual([]);
    const job = find(rendered, "Job", `${RELEASE}-migrate`);
    expect(job.metadata.annotations["helm.sh/hook"].split(",").sort()).toEqual(["pre-install", "pre-upgrade"]);
    // A Job's template is immutable: the previous run must go before the next is created.
    expect(job.metadata.annotations["helm.sh/hook-delete-policy"]).toContain("before-hook-creation");
  });

  it("refers to the Secrets deploy/k8s/secrets.yaml describes, by name, and holds no secret value", () => {
    const values = parse(readFileSync(path.join(CHART, "values.yaml"), "utf8")) as Json;
    const secretNames = parseAllDocuments(readFileSync(path.join(repositoryRoot, "deploy/k8s/secrets.yaml"), "utf8")).map(
      (document) => (document.toJS() as Json).metadata.name as string,
    );
    expect(Object.values(values.secrets as Record<string, string>).sort()).toEqual(secretNames.sort());
    const secretKeys = parseAllDocuments(readFileSync(path.join(repositoryRoot, "deploy/k8s/secrets.yaml"), "utf8")).flatMap((document) =>
      Object.keys((document.toJS() as Json).stringData as Json),
    );
    const configKeys = [...Object.keys(values.controlPlane.config as Json), ...Object.keys(values.dataPlane.config as Json)];
    for (const key of secretKeys) expect.soft(configKeys, key).not.toContain(key);
    for (const object of render(EVERYTHING)) expect(object.kind).not.toBe("Secret");
  });

  it("network policies name every container port and only those; gRPC admits this release's data planes only", () => {
    const rendered = render();
    const policies = ofKind(rendered, "NetworkPolicy");
    const podLabels = (deployment: Json): Record<string, string> => deployment.spec.template.metadata.labels;
    for (const deployment of ofKind(rendered, "Deployment")) {
      const policy = policies.find((candidate) => matches(candidate.spec.podSelector.matchLabels, podLabels(deployment)));
      expect(policy, `${deployment.metadata.name} has no NetworkPolicy`).toBeTruthy();
      const portNames = new Set(containers(deployment).flatMap((container) => (container.ports as Json[]).map((port) => port.name)));
      const ruled = (policy!.spec.ingress as Json[]).flatMap((rule) => (rule.ports as Json[]).map((port) => port.port as string));
      expect(new Set(ruled), deployment.metadata.name).toEqual(portNames);
    }
    const rulesOf = (policy: Json, port: string) =>
      (policy.spec.ingress as Json[]).filter((rule) => (rule.ports as Json[]).some((entry) => entry.port === port));
    const controlPlane = find(rendered, "NetworkPolicy", `${RELEASE}-control-plane`);
    const [grpc] = rulesOf(controlPlane, "grpc");
    expect(rulesOf(controlPlane, "grpc")).toHaveLength(1);
    expect(grpc!.from).toHaveLength(1);
    const dataPlaneSelector = grpc!.from[0].podSelector.matchLabels as Record<string, string>;
    expect(grpc!.from[0].namespaceSelector).toBeUndefined();
    expect(matches(dataPlaneSelector, podLabels(find(rendered, "Deployment", `${RELEASE}-data-plane`)))).toBe(true);
    expect(matches(dataPlaneSelector, podLabels(find(rendered, "Deployment", `${RELEASE}-control-plane`)))).toBe(false);
    // Another release's data planes in the same namespace are not admitted.
    const other = render({}, "other-gateway");
    expect(matches(dataPlaneSelector, podLabels(find(other, "Deployment", "other-gateway-model-gateway-data-plane")))).toBe(false);
    // The data plane's public port is open to all: its rule names no sources.
    const dataPlane = find(rendered, "NetworkPolicy", `${RELEASE}-data-plane`);
    expect(rulesOf(dataPlane, "http").map((rule) => rule.from)).toEqual([undefined]);
  });

  it("the admin API admits the configured labels only; metrics the configured namespace only", () => {
    const rendered = render({
      // Helm merges maps with values.yaml's: null removes a default label.
      networkPolicy: {
        adminAccess: { podLabels: { "gateway.admin-access": null, role: "operator" }, namespaceLabels: null },
        monitoringNamespace: "observability",
      },
    });
    const controlPlane = find(rendered, "NetworkPolicy", `${RELEASE}-control-plane`);
    const fromOf = (policy: Json, port: string) =>
      (policy.spec.ingress as Json[])
        .filter((rule) => (rule.ports as Json[]).some((entry) => entry.port === port))
        .map((rule) => rule.from);
    expect(fromOf(controlPlane, "admin")).toEqual([[{ podSelector: { matchLabels: { role: "operator" } } }]]);
    const monitoring = [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "observability" } } }];
    expect(fromOf(controlPlane, "metrics")).toEqual([monitoring]);
    expect(fromOf(find(rendered, "NetworkPolicy", `${RELEASE}-data-plane`), "metrics")).toEqual([monitoring]);
    // An admin rule without sources would admit everyone: the chart refuses to render it.
    expect(refusal({ networkPolicy: { adminAccess: { podLabels: null, namespaceLabels: null } } })).toMatch(/networkPolicy\.adminAccess/);
  });

  it("ports set in values move the container ports, the ConfigMaps, the Services and the ServiceMonitor together", () => {
    const rendered = render({
      ...EVERYTHING,
      controlPlane: { ports: { grpc: 6000, admin: 6001, metrics: 6002 } },
      dataPlane: { ports: { http: 7000, metrics: 7001 }, service: { port: 8443 } },
    });
    const expectations: [string, string, string, number][] = [
      ["control-plane", "grpc", "CONTROL_PLANE_GRPC_PORT", 6000],
      ["control-plane", "admin", "CONTROL_PLANE_ADMIN_PORT", 6001],
      ["control-plane", "metrics", "METRICS_PORT", 6002],
      ["data-plane", "http", "DATA_PLANE_PORT", 7000],
      ["data-plane", "metrics", "METRICS_PORT", 7001],
    ];
    for (const [plane, portName, variable, number] of expectations) {
      const deployment = find(rendered, "Deployment", `${RELEASE}-${plane}`);
      const container = containers(deployment)[0]!;
      expect((container.ports as Json[]).find((port) => port.name === portName)?.containerPort, `${plane} ${portName}`).toBe(number);
      const configMap = find(rendered, "ConfigMap", container.envFrom[0].configMapRef.name as string);
      expect(configMap.data[variable], `${plane} ${variable}`).toBe(String(number));
      if (portName === "metrics") {
        expect(deployment.spec.template.metadata.annotations["prometheus.io/port"]).toBe(String(number));
        expect(find(rendered, "Service", `${RELEASE}-${plane}-metrics`).spec.ports[0].port).toBe(number);
      }
    }
    // The data planes dial the control-plane Service's gRPC port.
    const controlPlaneService = find(rendered, "Service", `${RELEASE}-control-plane`);
    const grpcPort = (controlPlaneService.spec.ports as Json[]).find((port) => port.name === "grpc")!.port;
    expect(find(rendered, "ConfigMap", `${RELEASE}-data-plane-config`).data.CONTROL_PLANE_ADDRESS).toBe(
      `${controlPlaneService.metadata.name}:${grpcPort}`,
    );
    expect(find(rendered, "Service", `${RELEASE}-data-plane`).spec.ports[0]).toMatchObject({ port: 8443, targetPort: "http" });
    // The ServiceMonitor selects both metrics Services and scrapes their port by name.
    const monitor = find(rendered, "ServiceMonitor", RELEASE);
    const scraped = ofKind(rendered, "Service").filter((service) =>
      matches(monitor.spec.selector.matchLabels, service.metadata.labels ?? {}),
    );
    expect(scraped.map((service) => service.metadata.name).sort()).toEqual([
      `${RELEASE}-control-plane-metrics`,
      `${RELEASE}-data-plane-metrics`,
    ]);
    for (const service of scraped) expect(service.spec.ports.map((port: Json) => port.name)).toContain(monitor.spec.endpoints[0].port);
  });

  it("toggles: autoscaling off gives the Deployment its replicas; the policies, budgets and the Job can be left out", () => {
    const rendered = render({
      dataPlane: { autoscaling: { enabled: false }, replicas: 3, podDisruptionBudget: { enabled: false } },
      controlPlane: { podDisruptionBudget: { enabled: false } },
      networkPolicy: { enabled: false },
      migrate: { enabled: false },
    });
    expect(find(rendered, "Deployment", `${RELEASE}-data-plane`).spec.replicas).toBe(3);
    for (const kind of ["HorizontalPodAutoscaler", "NetworkPolicy", "PodDisruptionBudget", "Job"])
      expect(ofKind(rendered, kind), kind).toEqual([]);
    // With the autoscaler on, the Deployment has no replicas field for `helm upgrade` to reset.
    expect(find(render(), "Deployment", `${RELEASE}-data-plane`).spec.replicas).toBeUndefined();
  });

  it("binds a cloud's workload identity through the data plane's ServiceAccount: annotations and a pod label, no secret", () => {
    // Default: no account of its own (the namespace's default), as deploy/k8s.
    expect(ofKind(render(), "ServiceAccount")).toEqual([]);
    expect(find(render(), "Deployment", `${RELEASE}-data-plane`).spec.template.spec.serviceAccountName).toBeUndefined();
    const rendered = render({
      dataPlane: {
        serviceAccount: { create: true, annotations: { "azure.workload.identity/client-id": "00000000-0000-0000-0000-000000000000" } },
        podLabels: { "azure.workload.identity/use": "true" },
      },
    });
    const account = find(rendered, "ServiceAccount", `${RELEASE}-data-plane`);
    expect(account.metadata.annotations["azure.workload.identity/client-id"]).toBe("00000000-0000-0000-0000-000000000000");
    const pod = find(rendered, "Deployment", `${RELEASE}-data-plane`).spec.template;
    expect(pod.spec.serviceAccountName).toBe(`${RELEASE}-data-plane`);
    expect(pod.metadata.labels["azure.workload.identity/use"]).toBe("true");
    // An account made elsewhere (EKS Pod Identity's association, IRSA's annotation kept by another tool) is named as is.
    const named = render({ dataPlane: { serviceAccount: { name: "gateway-bedrock" } } });
    expect(ofKind(named, "ServiceAccount")).toEqual([]);
    expect(find(named, "Deployment", `${RELEASE}-data-plane`).spec.template.spec.serviceAccountName).toBe("gateway-bedrock");
    expect(refusal({ dataPlane: { serviceAccount: { create: "yes" } } })).toMatch(/serviceAccount\/create/);
  });

  it("two releases in one namespace share no object name", () => {
    const names = (objects: Json[]) => objects.map((object) => `${object.kind} ${object.metadata.name}`);
    const first = names(render({ serviceMonitor: { enabled: true } }));
    const second = names(render({ serviceMonitor: { enabled: true } }, "second"));
    expect(first.filter((name) => second.includes(name))).toEqual([]);
  });

  it("values.schema.json refuses wrong types, misspelt keys and ConfigMap entries the ports own", () => {
    expect(refusal({ controlPlane: { ports: { grpc: "grpc" } } })).toMatch(/controlPlane\/ports\/grpc/);
    expect(refusal({ dataPlane: { replica: 3 } })).toMatch(/additional properties 'replica'/);
    expect(refusal({ dataPlane: { config: { METRICS_PORT: "1" } } })).toMatch(/METRICS_PORT/);
    expect(refusal({ dataPlane: { config: { LOG_LEVEL: 3 } } })).toMatch(/LOG_LEVEL/);
    expect(refusal({ secrets: { internal: "" } })).toMatch(/secrets\/internal/);
    expect(refusal({})).toBe("");
  });
});
