import { snakeCase } from "change-case";

/**
 * The identify trait an audience sets: the snake_case of its name ("Premium Users" →
 * `premium_users`). Empty when the name has no letters or digits (the API refuses such names).
 */
export function audiencePropertyName(name: string): string {
  return snakeCase(name.trim());
}
