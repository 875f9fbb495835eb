// How deep a parsed JSON value nests, counted without recursion: a body nested 50,000 levels deep
// parses, but every recursive walk over it afterwards (JSON.stringify included) overflows the stack.

/** Whether `value` nests arrays and objects more than `limit` levels deep. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (typeof current !== "object" || current === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === "object" && child !== null) pending.push([child, depth + 1]);
    }
  }
  return false;
}
