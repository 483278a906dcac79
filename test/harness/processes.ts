/** The process tree as Linux's /proc shows it, for tests that prove nothing is left behind. */
import fs from "node:fs";

function stat(pid: number): { ppid: number; state: string } | null {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid …"; comm may hold spaces and parentheses.
    const [state, ppid] = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(ppid), state };
  } catch {
    return null;
  }
}

/** Every process below `pid`, children first. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const s = stat(Number(name));
    if (s) children.set(s.ppid, [...(children.get(s.ppid) ?? []), Number(name)]);
  }
  const out: number[] = [];
  const stack = [pid];
  while (stack.length) {
    for (const c of children.get(stack.pop()!) ?? []) {
      out.push(c);
      stack.push(c);
    }
  }
  return out;
}

/** Still running: exists and is not a zombie waiting to be reaped. */
export function isRunning(pid: number): boolean {
  const s = stat(pid);
  return s !== null && s.state !== "Z";
}

/** The value of one environment variable of a running process. */
export function environOf(pid: number, name: string): string | undefined {
  const entries = fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
  return entries.find((e) => e.startsWith(`${name}=`))?.slice(name.length + 1);
}
