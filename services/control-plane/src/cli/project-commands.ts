// gatewayctl's project commands: `projects create|list|show` and `limits set` (a project's rpm and daily cap).
import { call } from "./admin-connection";
import { type Command, need } from "./cli-command";
import { CliError } from "./cli-error";
import { keyTable } from "./key-commands";
import { dataOf, listing, money, type Row } from "./output-format";

/** A project and its limits, one line (`projects create`, `limits set`). */
const projectLine = (result: unknown) => {
  const project = result as Row;
  return `project ${project.id} (${project.name}): rpm ${project.rpm_limit ?? "default"}, daily cap ${money(project.daily_cap)}`;
};

export const PROJECT_COMMANDS: Record<string, Command> = {
  "projects create": {
    run: ({ target, values, command }) =>
      call(target(), "POST", "/admin/projects", {
        name: need(values.name, "name", command),
        ...(values.id ? { id: values.id } : {}),
      }),
    human: projectLine,
  },
  "projects list": {
    run: ({ target }) => call(target(), "GET", "/admin/projects"),
    human: (result) =>
      listing(
        "no projects",
        ["ID", "NAME", "RPM", "DAILY CAP"],
        dataOf(result).map((project) => [
          String(project.id),
          String(project.name),
          String(project.rpm_limit ?? "default"),
          money(project.daily_cap),
        ]),
      ),
  },
  "projects show": {
    run: async ({ target, project }) => {
      const [shown, balance, keys] = await Promise.all([
        call(target(), "GET", `/admin/projects/${project()}`),
        call(target(), "GET", `/admin/projects/${project()}/balance`),
        call(target(), "GET", `/admin/projects/${project()}/keys`),
      ]);
      return { project: shown, balance, keys: (keys as { data: Row[] }).data };
    },
    human: (result) => {
      const { project, balance, keys } = result as { project: Row; balance: Row; keys: Row[] };
      return [
        projectLine(project),
        `balance ${money(balance.balance)}, held ${money(balance.held)}, available ${money(balance.available)}, spent today ${money(balance.spent_today)}`,
        "",
        keyTable(keys),
      ].join("\n");
    },
  },
  "limits set": {
    run: async ({ target, project, values }) => {
      const body: Record<string, unknown> = {};
      if (values.rpm !== undefined) {
        if (values.rpm === "default") body.rpm_limit = null;
        else if (/^\d+$/.test(values.rpm)) body.rpm_limit = Number(values.rpm);
        else throw new CliError("--rpm takes a whole number (0 = no limit) or 'default'");
      }
      if (values["daily-cap"] !== undefined) body.daily_cap_usd = values["daily-cap"] === "none" ? null : values["daily-cap"];
      if (Object.keys(body).length === 0) throw new CliError("limits set needs --rpm and/or --daily-cap");
      return call(target(), "PATCH", `/admin/projects/${project()}/limits`, body);
    },
    human: projectLine,
  },
};
