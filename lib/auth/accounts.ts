import "server-only";
import { prisma } from "../platform/db";
import { AppError } from "../platform/errors";
import { createGate } from "../platform/gate";
import { clearPoints, givePointBack, takePoint } from "../platform/rate-limits";
import type { Credentials, SetupInput } from "./contract";
import { failedLoginWaitMs, loginPairKey } from "./login-throttle";
import { dummyHash, hashPassword, verifyPassword } from "./password";
import { createSession, type NewSession } from "./sessions";
import { assertSetupCode } from "./setup-code";
import { recordAudit } from "../audit/record";

type From = { address: string; userAgent?: string | null };

const ALREADY_SET_UP = new AppError("conflict", "Eventrail is already set up; log in instead");

export async function needsSetup(): Promise<boolean> {
  return (await prisma().user.count()) === 0;
}

/**
 * First run: creates the owner, the first workspace and a session. Throttled per client address,
 * needs the one-time setup code, and is refused once an owner exists (docs/management-api.md#first-run-setup).
 */
export async function setupOwner(input: SetupInput, from: { address: string }): Promise<NewSession> {
  await takePoint("setup", from.address);
  if (!(await needsSetup())) throw ALREADY_SET_UP;
  await assertSetupCode(input.code);
  const passwordHash = await hashPassword(input.password);
  const created = await prisma().$transaction(async (tx) => {
    // Serialise concurrent setups: only the first one may create the owner.
    await tx.$executeRawUnsafe("SELECT pg_advisory_xact_lock(727274)");
    if ((await tx.user.count()) > 0) throw ALREADY_SET_UP;
    const workspace = await tx.workspace.create({ data: { name: input.workspaceName }, select: { id: true } });
    const user = await tx.user.create({ data: { email: input.email, passwordHash }, select: { id: true } });
    await tx.membership.create({ data: { userId: user.id, workspaceId: workspace.id, role: "owner" } });
    // The code was for this one setup.
    await tx.setupCode.deleteMany({});
    return { userId: user.id, workspaceId: workspace.id };
  });
  return createSession(created);
}

/**
 * Logins in progress in this process: each holds database connections and, at its turn, the hasher.
 * Two at a time, 64 waiting, further ones turned away at once with 429 — a login flood then holds a
 * bounded share of the pool, and /v1 keeps the rest (measured by `npm run drill -- abuse`: with the
 * flood's queries on the pool, /v1/track waited seconds for a connection).
 */
const logins = createGate({ slots: 2, maxWaiting: 64 });

/**
 * Logs in (docs/operations.md#throttling): each attempt takes a point from the counters of its
 * address-and-account pair, its account and its address first (atomically in Postgres, so parallel
 * guesses cannot overtake the limits); a failure keeps them and is answered no sooner than
 * FAILED_LOGIN_MIN_MS after it arrived, plus a delay growing with the pair's failures; a success
 * clears the pair's and the account's failures and gives the address its point back. A bcrypt hash
 * from before argon2 is replaced.
 */
export async function login(input: Credentials, from: From): Promise<NewSession> {
  const arrived = performance.now();
  const done = await logins.run(() => checkLogin(input, from));
  if (done.turnedAway) throw new AppError("too_many_requests", "Too many logins in progress; try again in 1 s", undefined, 1);
  const outcome = done.value;
  if ("session" in outcome) return outcome.session;
  // Held back outside the gate: a waiting failure must not keep others from their turn.
  const waitMs = failedLoginWaitMs(outcome.pairAttempts, performance.now() - arrived);
  if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
  throw new AppError("unauthorized", "Email or password is incorrect");
}

/** Takes a point from each login counter; when one is spent, the narrowest one's 429 is the answer. */
async function takeLoginPoints(email: string, address: string): Promise<{ used: number }> {
  const [pair, account, fromAddress] = await Promise.allSettled([
    takePoint("loginPair", loginPairKey(address, email)),
    takePoint("loginAccount", email),
    takePoint("loginAddress", address),
  ]);
  for (const r of [pair, account, fromAddress]) if (r.status === "rejected") throw r.reason;
  return (pair as PromiseFulfilledResult<{ used: number }>).value;
}

async function checkLogin(input: Credentials, from: From): Promise<{ session: NewSession } | { pairAttempts: number }> {
  const pair = await takeLoginPoints(input.email, from.address);
  const user = await prisma().user.findUnique({
    where: { email: input.email },
    select: { id: true, passwordHash: true, memberships: { select: { workspaceId: true }, orderBy: { createdAt: "asc" } } },
  });
  // An unknown email is checked against a dummy hash, and every failure is held to the same minimum
  // time (login()): timing does not reveal accounts.
  const { ok, upgrade } = await verifyPassword(input.password, user?.passwordHash ?? (await dummyHash()));
  if (!user || !ok || user.memberships.length === 0) {
    // A failed login to a real account is in the audit log of each of its workspaces (docs/management-api.md#audit-log).
    if (user) await auditLogin(user, input.email, from, "auth.login_failed");
    return { pairAttempts: pair.used };
  }
  await Promise.all([
    clearPoints("loginPair", loginPairKey(from.address, input.email)),
    clearPoints("loginAccount", input.email),
    givePointBack("loginAddress", from.address),
  ]);
  if (upgrade) await prisma().user.update({ where: { id: user.id }, data: { passwordHash: await hashPassword(input.password) } });
  const workspaceId = user.memberships[0].workspaceId;
  await auditLogin({ id: user.id, memberships: [{ workspaceId }] }, input.email, from, "auth.login");
  return { session: await createSession({ userId: user.id, workspaceId, address: from.address, userAgent: from.userAgent }) };
}

async function auditLogin(user: { id: string; memberships: { workspaceId: string }[] }, email: string, from: From, action: string) {
  await prisma().$transaction(async (tx) => {
    for (const m of user.memberships) {
      await recordAudit(tx, {
        workspaceId: m.workspaceId,
        actor: { type: action === "auth.login" ? "user" : "anonymous", id: user.id, label: email, address: from.address },
        action,
        resourceType: "session",
      });
    }
  });
}
