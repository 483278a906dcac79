import "server-only";
import type { DestinationFilter } from "../destinations/contract";
import { filterAllows, type FilteredCall } from "./destination-filter";
/**
 * Routing (docs/routing.md): which Webhooks destinations receive a message. Pure: the caller
 * loads the source's connected destinations once per request.
 */

/** A destination connected to the message's source (destination_sources). */
export type ConnectedDestination = {
  id: string;
  enabled: boolean;
  filter?: DestinationFilter | null;
  /** "perUser": its deliveries carry their order key (docs/webhooks.md#ordering); absent or "none": they do not */
  ordering?: string;
};

/** The name the `integrations` object uses for this destination type (case-sensitive, as Segment's). */
export const WEBHOOKS_KEY = "Webhooks";

/**
 * `integrations.Webhooks` decides when set: true (or an options object, as Segment allows)
 * sends, false blocks. Otherwise `All` decides, and All defaults to true.
 */
export function integrationsAllow(integrations: Record<string, unknown> | null | undefined, key = WEBHOOKS_KEY): boolean {
  if (!integrations) return true;
  const own = integrations[key];
  if (own === false) return false;
  if (own === true || (typeof own === "object" && own !== null)) return true;
  return integrations.All !== false;
}

/** What routing reads of a message. */
export type RoutedMessage = FilteredCall & { integrations?: Record<string, unknown> | null };

/** The ids of the destinations that get the message: enabled, connected, allowed by its integrations and by their filter. */
export function routeMessage(message: RoutedMessage, destinations: ConnectedDestination[]): string[] {
  if (destinations.length === 0 || !integrationsAllow(message.integrations)) return [];
  return destinations.filter((d) => d.enabled && filterAllows(d.filter, message)).map((d) => d.id);
}
