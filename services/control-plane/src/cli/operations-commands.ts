// gatewayctl's operations commands: `health` (GET /admin/health) and `audit` (GET /admin/audit-log),
// printed by operations-output.ts.
import { apiQuery, call } from "./admin-connection";
import type { Command } from "./cli-command";
import { auditText, healthText } from "./operations-output";

export const OPERATIONS_COMMANDS: Record<string, Command> = {
  health: {
    run: ({ target }) => call(target(), "GET", "/admin/health"),
    human: healthText,
  },
  audit: {
    run: ({ target, values }) =>
      call(target(), "GET", `/admin/audit-log${apiQuery({ kind: values.kind, limit: values.limit, before: values.before })}`),
    human: auditText,
  },
};
