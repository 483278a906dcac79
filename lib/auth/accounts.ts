import { prisma } from "../db";
import { AppError } from "../errors";
import { hashPassword, verifyPassword } from "./password";
import type { Credentials, SetupInput } from "./schemas";
import { createSession, type NewSession } from "./sessions";

export async function needsSetup(): Promise<boolean> {
  return (await prisma().user.count()) === 0;
}

/** First run: creates the owner, the first workspace and a session. Refused once an owner exists. */
export async function setupOwner(input: SetupInput): Promise<NewSession> {
  const passwordHash = await hashPassword(input.password);
  const created = await prisma().$transaction(async (tx) => {
    // Serialise concurrent setups: only the first one may create the owner.
    await tx.$executeRawUnsafe("SELECT pg_advisory_xact_lock(727274)");
    if ((await tx.user.count()) > 0) throw new AppError("conflict", "Eventrail is already set up; log in instead");
    const workspace = await tx.workspace.create({ data: { name: input.workspaceName }, select: { id: true } });
    const user = await tx.user.create({ data: { email: input.email, passwordHash }, select: { id: true } });
    await tx.membership.create({ data: { userId: user.id, workspaceId: workspace.id, role: "owner" } });
    return { userId: user.id, workspaceId: workspace.id };
  });
  return createSession(created);
}

export async function login(input: Credentials): Promise<NewSession> {
  const user = await prisma().user.findUnique({
    where: { email: input.email },
    select: { id: true, passwordHash: true, memberships: { select: { workspaceId: true }, orderBy: { createdAt: "asc" }, take: 1 } },
  });
  // Compare against a dummy hash when the user is unknown so timing does not reveal accounts.
  const ok = await verifyPassword(input.password, user?.passwordHash ?? "$2b$12$C6UzMDM.H6dfI/f/IKcEeO7n6RFPrxVQz/iSaLZpmDsb5oSdx6sRa");
  if (!user || !ok || user.memberships.length === 0) throw new AppError("unauthorized", "Email or password is incorrect");
  return createSession({ userId: user.id, workspaceId: user.memberships[0].workspaceId });
}
