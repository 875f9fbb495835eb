import { describe, expect, it } from "vitest";
import { ProjectRates } from "../../src/project-rates";

describe("ProjectRates", () => {
  it("counts a project's requests this second, keeps the second before, and forgets quiet projects", () => {
    const rates = new ProjectRates();
    expect(rates.count("p", 1_000)).toMatchObject({ thisSecond: 1, lastSecond: 0 });
    expect(rates.count("p", 1_999)).toMatchObject({ thisSecond: 2, lastSecond: 0 });
    expect(rates.count("q", 1_500)).toMatchObject({ thisSecond: 1, lastSecond: 0 }); // each project apart
    expect(rates.count("p", 2_000)).toMatchObject({ thisSecond: 1, lastSecond: 2 });
    expect(rates.count("p", 4_100)).toMatchObject({ thisSecond: 1, lastSecond: 0 }); // a second with none between
    rates.prune(4_500);
    expect(rates.count("q", 4_600)).toMatchObject({ thisSecond: 1, lastSecond: 0 }); // "q" was forgotten
    expect(rates.count("p", 4_700)).toMatchObject({ thisSecond: 2, lastSecond: 0 }); // "p" was kept
  });
});
