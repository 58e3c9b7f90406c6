/**
 * The price of a model in budget units per million tokens (docs/accounting.md#prices-and-budgets). A
 * unit is whatever the operator decides (GPU-seconds, a notional rate, 1.0 for
 * everything); budgets count micro-units as integers.
 */
export interface ModelPrice {
  promptPerMTok: number;
  completionPerMTok: number;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * Cost of a request in integer micro-units: units/MTok × tokens = micro-units
 * exactly, rounded up so that many small requests cannot slip under a budget.
 */
export function costMicros(price: ModelPrice | undefined, promptTokens: number, completionTokens: number): number {
  if (!price) return 0;
  return Math.ceil(price.promptPerMTok * promptTokens + price.completionPerMTok * completionTokens);
}

/** A model is free (exempt from budget checks) when both its prices are zero or it has none. */
export function isFree(price: ModelPrice | undefined): boolean {
  return !price || (price.promptPerMTok === 0 && price.completionPerMTok === 0);
}

/** The prompt token estimate used to reserve quota before dispatch (bytes ÷ 4, docs/accounting.md#the-request-path-router). */
export function estimatePromptTokens(bodyBytes: number): number {
  return Math.ceil(bodyBytes / 4);
}
