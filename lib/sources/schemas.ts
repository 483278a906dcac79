import { z } from "zod";

export const createSourceSchema = z.object({
  name: z.string().trim().min(1, "Name is required").max(100, "At most 100 characters"),
});

export const updateSourceSchema = z
  .object({
    name: z.string().trim().min(1, "Name is required").max(100, "At most 100 characters").optional(),
    enabled: z.boolean().optional(),
  })
  .strict();

export type CreateSourceInput = z.infer<typeof createSourceSchema>;
export type UpdateSourceInput = z.infer<typeof updateSourceSchema>;

export type SourceDto = {
  id: string;
  name: string;
  writeKey: string;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
};
