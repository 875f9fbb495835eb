// Client input quoted in an error message is cut (issue 19, item 6: a 1 MiB model name came back whole).
import { describe, expect, it } from "vitest";
import { ECHO_LIMIT, echo, echoList, LISTED_LIMIT } from "../src/echo";

describe("echo", () => {
  it("keeps short input whole", () => {
    expect(echo("openai/gpt-4.1-mini")).toBe("openai/gpt-4.1-mini");
    expect(echo("x".repeat(ECHO_LIMIT))).toBe("x".repeat(ECHO_LIMIT));
  });

  it("cuts long input to its start and says how much was left out", () => {
    expect(echo("m".repeat(1024 * 1024))).toBe(`${"m".repeat(ECHO_LIMIT)}... (${1024 * 1024 - ECHO_LIMIT} more characters)`);
  });
});

describe("echoList", () => {
  it("names a short list whole", () => {
    expect(echoList(["a: x", "b: y"])).toBe("a: x; b: y");
  });

  it("names the first items of a long list, each cut, and how many more there are", () => {
    const items = ["z".repeat(10_000), ...Array.from({ length: 99_999 }, (_, index) => `item-${index}`)];
    const listed = echoList(items);
    expect(listed.startsWith(`${"z".repeat(ECHO_LIMIT)}... (${10_000 - ECHO_LIMIT} more characters); item-0; `)).toBe(true);
    expect(listed.endsWith(`item-${LISTED_LIMIT - 2}; and ${100_000 - LISTED_LIMIT} more`)).toBe(true);
    expect(echoList(items, 3, ", ", 6)).toBe("zzzzzz... (9994 more characters), item-0, item-1, and 99997 more");
  });
});
