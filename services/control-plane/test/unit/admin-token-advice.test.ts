// The admin token stays off the command line (issue 33, item 16): a `--token` value is in every user's
// `ps` and in the shell's history, so gatewayctl's help and the docs give it through GATEWAY_ADMIN_TOKEN.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repositoryRoot } from "../../src/config";
import { COMMANDS, commandHelp, overview } from "../../src/cli/command-help";

/** The README, the docs and the deploy files: what an operator copies commands from. */
function documents(): string[] {
  const under = (folder: string) =>
    readdirSync(path.join(repositoryRoot, folder), { recursive: true, encoding: "utf8" })
      .filter((file) => /\.(md|ya?ml|example|txt|tpl|sh)$/.test(file) && !file.includes("node_modules"))
      .map((file) => path.join(folder, file));
  return ["README.md", ...under("docs"), ...under("deploy")];
}

describe("the admin token's advice", () => {
  it("gatewayctl's help gives the token through GATEWAY_ADMIN_TOKEN and says why not --token", () => {
    for (const text of [overview(), ...COMMANDS.map((command) => commandHelp(command.name)!)]) {
      expect(text).toContain("GATEWAY_ADMIN_TOKEN");
      expect(text).toMatch(/--token TOKEN \(shown to every user by ps: prefer GATEWAY_ADMIN_TOKEN\)/);
    }
  });

  it("no document passes a token on the command line", () => {
    const shown = documents().flatMap((file) =>
      readFileSync(path.join(repositoryRoot, file), "utf8")
        .split("\n")
        .map((line, index) => ({ where: `${file}:${index + 1}`, line }))
        // A value after the flag: quoted, a variable, or a literal token.
        .filter(({ line }) => /--token[ =]+(["'$]|[\w-]{12,})/.test(line)),
    );
    expect(shown).toEqual([]);
  });
});
