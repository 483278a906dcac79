// The abuse drill's idle-socket attacker (scripts/drill/attacks.ts), a process of its own so that
// its sockets neither count against the drill's file descriptors nor share its event loop:
//   node idle-sockets.mjs <http://127.0.0.1:port> <sockets> <local address>
// Opens that many TCP connections that never send a byte (at most 500 connecting at once) and holds
// them; one the server closes is opened again 5 s later. When stdin closes it prints one JSON line
// (opened, closed by the server, refused, open now, most open at once) and exits. It needs a file
// descriptor per socket it holds: with the edge's caps that is a few hundred, without them
// `ulimit -n` must exceed the sockets asked for.
import net from "node:net";

const [base, wanted, localAddress] = process.argv.slice(2);
const { hostname, port } = new URL(base);
const target = Number(wanted);
const MAX_CONNECTING = 500;
const REOPEN_MS = 5_000;
let running = true;
let open = 0;
let connecting = 0;
let maxOpen = 0;
const tally = { opened: 0, "closed by the edge": 0, refused: 0 };
const sockets = new Set();
let owed = target;

function pump() {
  while (running && owed > 0 && connecting < MAX_CONNECTING) {
    owed--;
    connecting++;
    const s = net.connect({ host: hostname, port: Number(port), localAddress });
    sockets.add(s);
    let connected = false;
    s.once("connect", () => {
      connected = true;
      connecting--;
      open++;
      tally.opened++;
      maxOpen = Math.max(maxOpen, open);
      pump();
    });
    s.on("error", () => {});
    s.once("close", () => {
      sockets.delete(s);
      if (connected) {
        open--;
        tally["closed by the edge"]++;
      } else {
        connecting--;
        tally.refused++;
      }
      if (!running) return;
      setTimeout(() => {
        owed++;
        pump();
      }, REOPEN_MS);
      pump();
    });
  }
}
pump();

process.stdin.resume();
process.stdin.on("end", () => {
  running = false;
  const report = { ...tally, "open at the end": open, "most open at once": maxOpen };
  for (const s of sockets) s.destroy();
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.exit(0);
});
