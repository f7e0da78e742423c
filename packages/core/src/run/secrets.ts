/**
 * Keeping secrets out of what is stored, cached, logged and printed (DESIGN.md "Conventions": secrets): API
 * keys come from the environment, and credentials a user puts into a base URL
 * (`http://user:key@host/v1`, `...?api-key=...`) are removed before the URL is stored or shown.
 */

/** Query parameters whose values are treated as secrets (`key`, `api-key`, `token`, `sig`, `password`, ...). */
const SECRET_PARAM = /key|token|secret|sig|pass|auth|credential/i;

/**
 * `url` without credentials: user info dropped and the values of secret-looking query parameters replaced by
 * `redacted`; anything else (scheme, host, port, path, other parameters) unchanged. A string that is not a URL is
 * returned as is.
 */
export function credentialFreeUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (!u.username && !u.password && ![...u.searchParams.keys()].some((k) => SECRET_PARAM.test(k))) return url;
  u.username = '';
  u.password = '';
  for (const k of [...u.searchParams.keys()]) if (SECRET_PARAM.test(k)) u.searchParams.set(k, 'redacted');
  return u.toString();
}

/**
 * The secrets inside `url` (user name, password, secret-looking query values; raw and percent-decoded), to pass to
 * `redact` so that error text quoting the URL never shows them. Empty for a URL without credentials.
 */
export function urlSecrets(url: string | undefined): string[] {
  if (!url) return [];
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const out = new Set<string>();
  const add = (v: string) => {
    if (!v) return;
    out.add(v);
    try {
      out.add(decodeURIComponent(v));
    } catch {
      // not percent-encoded
    }
  };
  add(u.username);
  add(u.password);
  for (const [k, v] of u.searchParams) if (SECRET_PARAM.test(k)) add(v);
  return [...out];
}

/**
 * Secrets shorter than this are not redacted: replacing every `k` of a message for a one-letter test key would garble
 * it, and no real credential is that short.
 */
export const MIN_SECRET_LENGTH = 6;

/** `message` with every occurrence of each secret replaced by `[redacted]` (secrets under `MIN_SECRET_LENGTH` ignored). */
export function redact(message: string, secrets: readonly string[] | undefined): string {
  let m = message;
  for (const secret of secrets ?? []) if (secret.length >= MIN_SECRET_LENGTH) m = m.split(secret).join('[redacted]');
  return m;
}
