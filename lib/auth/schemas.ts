import { z } from "zod";

export const credentialsSchema = z.object({
  email: z.string().trim().toLowerCase().email("Enter a valid email address"),
  password: z.string().min(1, "Enter your password"),
});

export const setupSchema = z.object({
  email: z.string().trim().toLowerCase().email("Enter a valid email address"),
  password: z.string().min(10, "Use at least 10 characters").max(200),
  workspaceName: z.string().trim().min(1).max(100).default("My workspace"),
});

export const createTokenSchema = z.object({
  name: z.string().trim().min(1, "Name the token").max(100),
});

export type Credentials = z.infer<typeof credentialsSchema>;
export type SetupInput = z.infer<typeof setupSchema>;
