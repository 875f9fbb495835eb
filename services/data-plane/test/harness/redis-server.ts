// A Redis server of the test's own, on a free port, so a test can stop it
// without touching the machine's shared Redis on 6379.
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface OwnRedis {
  url: string;
  port: number;
  /** Freezes the server (SIGSTOP): connections stay open, nothing is answered. */
  pause(): void;
  /** Thaws it (SIGCONT). */
  resume(): void;
  stop(): Promise<void>;
}

export async function startOwnRedis(port?: number): Promise<OwnRedis> {
  const chosen = port ?? (await freePort());
  const child: ChildProcess = spawn("redis-server", ["--port", String(chosen), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  for (let attempt = 0; attempt < 100; attempt++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(chosen, "127.0.0.1", () => {
        socket.end();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (up) {
      return {
        url: `redis://127.0.0.1:${chosen}`,
        port: chosen,
        pause: () => child.kill("SIGSTOP"),
        resume: () => child.kill("SIGCONT"),
        stop: async () => {
          child.kill("SIGKILL");
          await exited;
        },
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill("SIGKILL");
  throw new Error(`redis-server did not start on port ${chosen}`);
}
