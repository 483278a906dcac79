/**
 * One attack of the abuse drill in a process of its own (scripts/drill/attacks.ts `inChild`), so
 * that its own work (writing hundreds of MB/s of oversized bodies, say) does not load the drill's
 * process, which times `/v1`: what is measured is what the attack costs the edge.
 * argv: the attack and its target (JSON). Closing stdin stops it; the tally is its last stdout line.
 */
import { type Attack, type AttackTarget, startAttack, type Tally } from "./attacks";

const [attack, target] = process.argv.slice(2);
const tally: Tally = {};
const stop = startAttack(attack as Attack, JSON.parse(target) as AttackTarget, tally, { inProcess: true });
process.stdin.resume();
process.stdin.on("end", async () => {
  await stop();
  process.stdout.write(`${JSON.stringify(tally)}\n`);
  process.exit(0);
});
