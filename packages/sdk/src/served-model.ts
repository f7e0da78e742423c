/**
 * Whether an endpoint's answer came from the model the run asked for (issue 25: a replica serving another model must
 * not be believed). A model plugin reports the name the provider gave its answer (`ModelResponse.model`, e.g. the
 * chat-completions body's `model`); the core compares it with the name it asked for (`servesModel`) before the answer is
 * scored or cached, and drains an endpoint that serves another model (or, with one endpoint, ends the run).
 */

/** Control characters (C0, DEL, C1): never shown raw in a message (terminal escapes). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Longest served-model name a message quotes (longer names are cut, with `…`). */
const MAX_NAME = 200;

/**
 * A dated snapshot suffix: `-YYYY-MM-DD` (OpenAI: `gpt-4o-mini-2024-07-18`), `-YYYYMMDD` (Anthropic:
 * `claude-3-5-sonnet-20241022`) or `-MMDD` (older OpenAI snapshots: `gpt-4-0613`, `gpt-3.5-turbo-0125`).
 */
const SNAPSHOT = /^-(?:(20\d\d)-(\d\d)-(\d\d)|(20\d\d)(\d\d)(\d\d)|(\d\d)(\d\d))$/;

/**
 * The model name a run asks an endpoint for: the model id without its plugin prefix — the text after the first `:`
 * (`openai:gpt-4o-mini` -> `gpt-4o-mini`, `openai:meta-llama/Llama-3-8B` -> `meta-llama/Llama-3-8B`), the name the
 * core gives the plugin (`Tokens.ModelName`); the whole id when it has no `:`.
 */
export function askedModelName(modelId: string): string {
  const colon = modelId.indexOf(':');
  return colon < 0 ? modelId : modelId.slice(colon + 1);
}

/**
 * Whether an answer that names model `served` (`ModelResponse.model`) comes from the model `asked` for. The rule:
 * - no name (`undefined` or `''`: some local servers omit the field) is accepted;
 * - the same name, letter case aside (`gpt-4o-mini` and `GPT-4o-mini`);
 * - a dated snapshot of it: the asked name followed by `-YYYY-MM-DD`, `-YYYYMMDD` or `-MMDD` with a month 01-12 and a day
 *   01-31 (OpenAI answers `gpt-4o-mini` with `gpt-4o-mini-2024-07-18` and `gpt-4` with `gpt-4-0613`; Azure OpenAI
 *   names a deployment's dated model). A dated name asked for must be answered with that same date;
 * - an alias ending in `-latest` answered by a dated snapshot of the name before it (Anthropic's
 *   `claude-3-5-sonnet-latest` answered as `claude-3-5-sonnet-20241022`).
 * Anything else — another model, an organisation prefix added or dropped (`meta-llama/Llama-3-8B` for `Llama-3-8B`: no
 * provider documents answering so), a file path — is another model.
 */
export function servesModel(asked: string, served: string | undefined): boolean {
  if (served === undefined || served === '') return true;
  const a = asked.toLowerCase();
  const s = served.toLowerCase();
  if (s === a) return true;
  const base = a.endsWith('-latest') && !s.startsWith(a) ? a.slice(0, -'-latest'.length) : a;
  if (!s.startsWith(base)) return false;
  const m = SNAPSHOT.exec(s.slice(base.length));
  if (!m) return false;
  const month = Number(m[2] ?? m[5] ?? m[7]);
  const day = Number(m[3] ?? m[6] ?? m[8]);
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

/**
 * `name` (a served-model name from an untrusted response) made safe to show and store: control characters as spaces,
 * at most 200 characters (then `…`).
 */
export function shownModelName(name: string): string {
  const flat = name.replace(CONTROL, ' ');
  return flat.length > MAX_NAME ? `${flat.slice(0, MAX_NAME)}…` : flat;
}

/**
 * Why an endpoint's answers are refused, in a few words for a summary: `serves model <served>, not <asked>` (`served`
 * through `shownModelName`).
 */
export function otherModelReason(asked: string, served: string): string {
  return `serves model ${shownModelName(served)}, not ${asked}`;
}
