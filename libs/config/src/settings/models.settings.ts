import { Transform } from 'class-transformer';
import { IsString, ValidateBy } from 'class-validator';
import { HttpUrl, Optional, WholeNumber } from '../setting-kinds';

/** What a model costs, in US dollars per million tokens read and written. */
interface ModelPrice {
  input_per_mtok: number;
  output_per_mtok: number;
  /** Input tokens the vendor read from its prompt cache (CONTRACTS §24); absent: priced as other input. */
  cached_input_per_mtok?: number;
}

const isAmount = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 0;

const isPrice = (price: unknown): price is ModelPrice => {
  if (typeof price !== 'object' || price === null) return false;
  const { input_per_mtok, output_per_mtok, cached_input_per_mtok } = price as Record<string, unknown>;
  return (
    isAmount(input_per_mtok) &&
    isAmount(output_per_mtok) &&
    (cached_input_per_mtok === undefined || isAmount(cached_input_per_mtok))
  );
};

/** Transform of MODEL_PRICES: the JSON map (empty: none), or the text as given when it is not JSON (refused). */
const parseJson = ({ value }: { value: unknown }): unknown => {
  if (value === undefined || value === '') return {};
  try {
    return JSON.parse(String(value)) as unknown;
  } catch {
    return value;
  }
};

/** Vendor models: endpoints, keys, retries and timeouts. */
export class ModelSettings {
  @Optional(HttpUrl())
  openaiBaseUrl?: string;

  @Optional(IsString())
  openaiApiKey?: string;

  @HttpUrl()
  anthropicBaseUrl = 'https://api.anthropic.com/v1';

  @Optional(IsString())
  anthropicApiKey?: string;

  /** Retries of a vendor model call after a 429, a 5xx, a network error or a stream broken before any output. */
  @WholeNumber({ min: 0, max: 10 })
  modelMaxRetries = 3;

  /** First wait between vendor model call attempts; it doubles on each attempt. */
  @WholeNumber({ min: 0 })
  modelRetryBaseMs = 1000;

  /** Longest wait between attempts: a vendor asking (retry-after) to wait longer ends the call with an error. */
  @WholeNumber({ min: 0 })
  modelRetryMaxDelayMs = 30000;

  /** A vendor that sends nothing (no response, no stream bytes) for this long fails the call. */
  @WholeNumber({ min: 100 })
  modelIdleTimeoutMs = 60000;

  /**
   * Prices for GET /usage's cost (CONTRACTS §20), by model as agents name it (`builtin`, `openai:gpt-4o`): a JSON
   * map `{"<model>": {"input_per_mtok": n, "output_per_mtok": n, "cached_input_per_mtok"?: n}}`. A model not in it
   * costs 0.
   */
  @Transform(parseJson)
  @ValidateBy({
    name: 'isModelPrices',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        Object.values(value).every(isPrice),
      defaultMessage: () =>
        'must be a JSON map {"<model>": {"input_per_mtok": n, "output_per_mtok": n, "cached_input_per_mtok"?: n}} ' +
        'of numbers of at least 0',
    },
  })
  modelPrices: Record<string, ModelPrice> = {};
}
