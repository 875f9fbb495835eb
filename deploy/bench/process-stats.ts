// CPU time and memory of processes, read from /proc (Linux), and CPU pinning
// with taskset. Nothing here runs inside the measured processes.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** User + system CPU seconds a process has used so far (all its threads); 0 when it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after "(comm)": state is field 3, utime 14, stime 15 (1-based, proc(5)).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / clockTicks();
  } catch {
    return 0;
  }
}

function statusField(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Resident set size now, in bytes. */
export const rssBytes = (pid: number): number => statusField(pid, "VmRSS");
/** Peak resident set size since the process started (the kernel's high-water mark), in bytes. */
export const peakRssBytes = (pid: number): number => statusField(pid, "VmHWM");

/** Samples a process's RSS every `intervalMs` and keeps the highest value. */
export class RssSampler {
  private peak = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    intervalMs = 200,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  private sample(): void {
    this.peak = Math.max(this.peak, rssBytes(this.pid));
  }

  stop(): number {
    clearInterval(this.timer);
    this.sample();
    return this.peak;
  }
}

/** Pids of the processes whose command name is one of `names` (e.g. postgres, redis-server). */
export function pidsNamed(names: string[]): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (names.includes(readFileSync(`/proc/${entry}/comm`, "utf8").trim())) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** A process's command line (NUL-separated arguments joined by spaces; a PostgreSQL backend's shows its database); "" when it is gone. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
  } catch {
    return "";
  }
}

export const tasksetAvailable = (): boolean => ["/usr/bin/taskset", "/bin/taskset"].some((file) => existsSync(file));

/** Pins every thread of `pid` to the CPU list `cpus` (e.g. "0" or "0,1"). */
export function pin(pid: number, cpus: string): void {
  execFileSync("taskset", ["-a", "-c", "-p", cpus, String(pid)], { stdio: "ignore" });
}

/** "0", "0,1", "0-3" -> [0], [0, 1], [0, 1, 2, 3]. */
export function parseCpuList(list: string): number[] {
  return list.split(",").flatMap((part) => {
    const [from, to] = part.split("-").map(Number);
    return Array.from({ length: (to ?? from!) - from! + 1 }, (_, index) => from! + index);
  });
}

/** Busy seconds (everything but idle and iowait) of the given CPUs since boot, from /proc/stat. */
export function cpuBusySeconds(cpus: number[]): number {
  let ticks = 0;
  for (const line of readFileSync("/proc/stat", "utf8").split("\n")) {
    const match = /^cpu(\d+) (.*)$/.exec(line);
    if (!match || !cpus.includes(Number(match[1]))) continue;
    const [user, nice, system, , , irq, softirq, steal] = match[2]!.trim().split(/\s+/).map(Number);
    ticks += user! + nice! + system! + irq! + softirq! + steal!;
  }
  return ticks / clockTicks();
}
