'use strict';
// streaming.failure-no-credentials: the error of a failed provider call goes
// back to the model and into logs, so it must carry none of the call's own
// credentials of 8 characters or more (the API key, the base URL's user name,
// password and query values), nor any piece of 8 characters of one: a
// provider's 401 body often echoes the key, a body excerpt can cut a key and
// leave its start, and fetch names a URL with user info in its error.

/** Secrets shorter than this are not looked for (too likely to be ordinary words). */
const MIN_SECRET = 8;
/** What a secret, or a piece of one, becomes. */
const MARKER = '[redacted]';
/** Tried in order when a secret shares a piece with MARKER itself (a password "[redacted]...", say). */
const FALLBACK_MARKERS = ['<redacted>', '{hidden}', '#', ''];

/** `s` percent-decoded, or null when it is not valid percent-encoding. */
function decoded(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/** `s` as it appears inside a JSON string (a message may hold JSON.stringify of an error object). */
function jsonEscaped(s) {
  return JSON.stringify(s).slice(1, -1);
}

/**
 * The credentials of a call: the API key and, from the base URL, the user info
 * as written (`user:pass`), the user name and the password, the query string
 * (without `?`) and each query value, each as written, as the URL parser
 * serialises it and percent-decoded. Empty ones are dropped; no order.
 */
function secretsOf(apiKey, baseUrl) {
  const found = [];
  const add = (s) => {
    if (typeof s !== 'string' || s === '') return;
    found.push(s);
    const plain = decoded(s);
    if (plain !== null && plain !== s) found.push(plain);
  };
  add(apiKey);
  const raw = typeof baseUrl === 'string' ? baseUrl : '';
  let url = null;
  try {
    url = new URL(raw);
  } catch {
    url = null; // not a URL: nothing is known from it
  }
  if (url) {
    // As the parser serialises them (fetch's error shows the serialised URL).
    add(url.username);
    add(url.password);
    if (url.username || url.password) add(`${url.username}:${url.password}`);
    add(url.search.replace(/^\?/, ''));
    for (const [, value] of url.searchParams) add(value);
    // As written: the authority runs up to the first / ? # or \, and its last @ ends the user info.
    const scheme = raw.indexOf('://');
    if (scheme >= 0) {
      const rest = raw.slice(scheme + 3);
      const authority = rest.slice(0, rest.search(/[/?#\\]|$/));
      const at = authority.lastIndexOf('@');
      if (at >= 0) {
        const userinfo = authority.slice(0, at);
        add(userinfo);
        const colon = userinfo.indexOf(':');
        add(colon < 0 ? userinfo : userinfo.slice(0, colon));
        if (colon >= 0) add(userinfo.slice(colon + 1));
      }
    }
    const question = raw.indexOf('?');
    if (question >= 0) {
      const query = raw.slice(question + 1).split('#')[0];
      add(query);
      for (const pair of query.split('&')) {
        const equals = pair.indexOf('=');
        if (equals >= 0) {
          const value = pair.slice(equals + 1);
          add(value);
          add(decoded(value.replace(/\+/g, ' ')));
        }
      }
    }
  }
  const all = new Set();
  for (const s of found) {
    all.add(s);
    all.add(jsonEscaped(s));
  }
  return [...all].filter((s) => s !== '');
}

/** Every window of MIN_SECRET characters of every secret long enough to be looked for. */
function windowsOf(secrets) {
  const windows = new Set();
  for (const secret of secrets) {
    if (typeof secret !== 'string' || secret.length < MIN_SECRET) continue;
    for (let i = 0; i + MIN_SECRET <= secret.length; i++) windows.add(secret.slice(i, i + MIN_SECRET));
  }
  return windows;
}

/** Whether `text` still holds a piece of MIN_SECRET characters of a secret. */
function leaks(text, windows) {
  for (let i = 0; i + MIN_SECRET <= text.length; i++) if (windows.has(text.slice(i, i + MIN_SECRET))) return true;
  return false;
}

/**
 * Every stretch of `text` covered by pieces of MIN_SECRET characters of a
 * secret becomes one `marker`. A secret found whole, or any cut piece of 8
 * characters or more (the start of a key right before an excerpt's `…`, or
 * its end), is made of such windows, so it is covered in full.
 */
function cover(text, windows, marker) {
  const covered = new Uint8Array(text.length);
  for (let i = 0; i + MIN_SECRET <= text.length; i++) {
    if (windows.has(text.slice(i, i + MIN_SECRET))) covered.fill(1, i, i + MIN_SECRET);
  }
  const out = [];
  for (let i = 0; i < text.length;) {
    const start = i;
    const hidden = covered[i];
    while (i < text.length && covered[i] === hidden) i++;
    out.push(hidden ? marker : text.slice(start, i));
  }
  return out.join('');
}

/** The user info of every `scheme://user:pass@` URL in `text` becomes `[redacted]@`. */
function coverUserInfo(text) {
  // The look-behind starts a scheme only where a word starts, so a long text is read in linear time.
  return text.replace(/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)[^\s/?#\\@]*(?:@[^\s/?#\\@]*)*@/gi, `$1${MARKER}@`);
}

/**
 * `text` without any of `secrets` (of MIN_SECRET characters or more) nor any
 * piece of MIN_SECRET characters of one, and without the user info of URLs.
 */
function redact(text, secrets) {
  const windows = windowsOf(secrets || []);
  const out = coverUserInfo(String(text));
  if (windows.size === 0) return out;
  // A marker next to kept text can only form a new piece when a secret shares
  // characters with the marker itself; then the next marker is tried.
  for (const marker of [MARKER, ...FALLBACK_MARKERS]) {
    const result = cover(out, windows, marker);
    if (!leaks(result, windows)) return result;
  }
  // Not reachable for real credentials: the text is withheld rather than leaked.
  return '(withheld: it held a credential)';
}

module.exports = { secretsOf, redact, MIN_SECRET };
