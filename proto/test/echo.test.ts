// Client input quoted in an error message is cut (issue 19, item 6: a 1 MiB model name came back whole).
import { describe, expect, it } from "vitest";
import { ECHO_LIMIT, echo } from "../src/echo";

describe("echo", () => {
  it("keeps short input whole", () => {
    expect(echo("openai/gpt-4.1-mini")).toBe("openai/gpt-4.1-mini");
    expect(echo("x".repeat(ECHO_LIMIT))).toBe("x".repeat(ECHO_LIMIT));
  });

  it("cuts long input to its start and says how much was left out", () => {
    expect(echo("m".repeat(1024 * 1024))).toBe(`${"m".repeat(ECHO_LIMIT)}... (${1024 * 1024 - ECHO_LIMIT} more characters)`);
  });
});
