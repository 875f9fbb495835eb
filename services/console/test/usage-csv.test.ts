// The usage page's CSV download (src/pages/usage-csv.ts) opened in a spreadsheet: a text cell that
// starts like a formula (=, +, -, @, tab, carriage return) is prefixed with a single quote, as OWASP's
// CSV-injection advice says, so it shows as text and never runs; numbers stay numbers, negative ones too.
import { describe, expect, it } from "vitest";
import { CSV_HEADER, csvCell, usageCsv } from "../src/pages/usage-csv";

const row = (model: string, cost = { usd: "0.000400", nano: "400000" }) => ({
  day: "2026-11-28",
  model,
  requests: 2,
  input_tokens: 1000,
  output_tokens: 10,
  tokens: { input: 1000, cached_input: 0, cache_write: 0, output: 10, reasoning: 0 },
  cached_share: 0,
  cost,
  cost_by_component: {},
});

describe("usage CSV", () => {
  it.each([
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ["+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"],
    ["-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"],
    ["@SUM(1+9)*cmd|' /C calc'!A0", "'@SUM(1+9)*cmd|' /C calc'!A0"],
    ["\t=1+1", "'\t=1+1"],
    ["\r=1+1", `"'\r=1+1"`],
  ])("makes the text cell %j inert: %s", (text, cell) => {
    expect(csvCell(text)).toBe(cell);
    expect(usageCsv([row(text)]).split("\n")[1]).toBe(`2026-11-28,${cell},2,1000,10,1000,0,0,10,0,0.000400,400000`);
  });

  it("leaves numbers, negative ones included, and ordinary text as they are", () => {
    expect(csvCell(-12)).toBe("-12");
    expect(csvCell("-0.000400")).toBe("-0.000400");
    expect(csvCell("-400000")).toBe("-400000");
    expect(csvCell("openai/gpt-4.1-mini")).toBe("openai/gpt-4.1-mini");
    expect(csvCell("a, b")).toBe(`"a, b"`);
    expect(csvCell("")).toBe("");
    expect(usageCsv([row("openai/gpt-4.1-mini", { usd: "-0.000400", nano: "-400000" })])).toBe(
      `${CSV_HEADER.join(",")}\n2026-11-28,openai/gpt-4.1-mini,2,1000,10,1000,0,0,10,0,-0.000400,-400000\n`,
    );
  });
});
