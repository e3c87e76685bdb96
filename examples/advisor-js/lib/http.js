'use strict';
// Black-box mode: advisor calls over real HTTP (fetch) to a provider's base
// URL, plain JSON answers and event streams read incrementally.
//
// streaming.final-event-required: a stream counts only when it reaches its
// final event (Anthropic message_stop, OpenAI data: [DONE], Responses
// response.completed or response.incomplete); one that ends before it is an
// error. streaming.failure-report: every failure says what happened (the
// HTTP status and an excerpt of the body, a body that is not JSON, an error
// reported inside the stream, a refused connection, a timeout).
// streaming.failure-no-credentials: none of those messages carries the call's
// credentials, nor a piece of 8 characters of one (lib/redact.js).

const { encode } = require('./wire');
const { ProviderFailure } = require('./provider');
const { secretsOf, redact } = require('./redact');

const DEFAULT_TIMEOUT_MS = 30000;
const EXCERPT = 500;

function excerpt(text) {
  const s = String(text);
  return s.length <= EXCERPT ? s : s.slice(0, EXCERPT) + '…';
}

function parseJson(text, what) {
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderFailure(`the provider's ${what} is not JSON: ${excerpt(text) || '(empty body)'}`);
  }
}

// ----------------------------------------------------- plain JSON answers

const decodeAnswer = {
  anthropic(obj) {
    if (obj && obj.type === 'error') throw new ProviderFailure(`the provider reported an error: ${describeError(obj.error)}`);
    if (!obj || !Array.isArray(obj.content)) throw new ProviderFailure('the provider answer has no content');
    const text = obj.content.filter((b) => b && b.type === 'text').map((b) => b.text || '').join('');
    return { text, finishReason: obj.stop_reason === 'max_tokens' ? 'length' : 'stop' };
  },
  openai(obj) {
    if (obj && obj.error) throw new ProviderFailure(`the provider reported an error: ${describeError(obj.error)}`);
    const choice = obj && Array.isArray(obj.choices) ? obj.choices[0] : undefined;
    if (!choice) throw new ProviderFailure('the provider answer has no choices');
    const content = choice.message && typeof choice.message.content === 'string' ? choice.message.content : '';
    return { text: content, finishReason: choice.finish_reason === 'length' ? 'length' : 'stop' };
  },
  codex(obj) {
    if (obj && (obj.error || obj.status === 'failed')) {
      throw new ProviderFailure(`the provider reported an error: ${describeError(obj.error)}`);
    }
    return { text: responseText(obj), finishReason: responseFinish(obj) };
  },
};

function describeError(error) {
  if (!error) return 'unknown error';
  if (typeof error === 'string') return error;
  const parts = [error.type, error.code, error.message].filter((p) => typeof p === 'string' && p !== '');
  return parts.length ? parts.join(': ') : JSON.stringify(error);
}

/** The text of a Responses API response object. */
function responseText(response) {
  if (!response) return '';
  if (typeof response.output_text === 'string') return response.output_text;
  const out = [];
  for (const item of Array.isArray(response.output) ? response.output : []) {
    if (!item || item.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const part of item.content) if (part && part.type === 'output_text') out.push(part.text || '');
  }
  return out.join('');
}

function responseFinish(response) {
  const incomplete = response && response.status === 'incomplete';
  const reason = response && response.incomplete_details && response.incomplete_details.reason;
  return incomplete && (reason === 'max_output_tokens' || !reason) ? 'length' : 'stop';
}

// ---------------------------------------------------------- event streams

/** Server-sent events: "event:" and "data:" lines, an event per blank line. */
class SseParser {
  constructor(onEvent) {
    this.onEvent = onEvent;
    this.buffer = '';
    this.event = '';
    this.data = [];
  }

  push(chunk) {
    this.buffer += chunk;
    let newline;
    while ((newline = this.buffer.search(/\r\n|\n|\r/)) >= 0) {
      if (this.buffer[newline] === '\r' && newline === this.buffer.length - 1) break; // maybe half of \r\n
      const line = this.buffer.slice(0, newline);
      const width = this.buffer.startsWith('\r\n', newline) ? 2 : 1;
      this.buffer = this.buffer.slice(newline + width);
      if (this.line(line)) return true;
    }
    return false;
  }

  /** The end of the body: a last event not followed by a blank line still counts. */
  end() {
    if (this.buffer !== '') {
      if (this.line(this.buffer)) return true;
      this.buffer = '';
    }
    return this.line('');
  }

  /** One line; true once the decoder has seen its final event. */
  line(line) {
    if (line === '') {
      if (this.data.length === 0) {
        this.event = '';
        return false;
      }
      const event = this.event;
      const data = this.data.join('\n');
      this.event = '';
      this.data = [];
      return this.onEvent(event, data) === true;
    }
    if (line.startsWith(':')) return false; // a comment
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    return false;
  }
}

/** A stream event's JSON and its type: the object's own `type`, else the event's name. */
function typedEvent(name, data) {
  const obj = parseJson(data, 'stream event');
  return { obj, type: (obj && obj.type) || name };
}

/**
 * Stream readers, one a provider. `final` names the final event (for the error
 * of a stream that ends before it). `read(name, data, seen)` takes one event:
 * it adds the answer's text to `seen.text`, keeps in `seen.end` what the finish
 * reason is read from, and returns true at the final event. `finish(end)` is
 * the finish reason; `fallback(end)`, where given, the text of a stream that
 * sent no text of its own.
 */
const streamReaders = {
  anthropic: {
    final: 'message_stop',
    read(name, data, seen) {
      const { obj, type } = typedEvent(name, data);
      if (type === 'error') {
        throw new ProviderFailure(`the provider reported an error inside the stream: ${describeError(obj.error)}`);
      }
      if (type === 'content_block_start' && obj.content_block && obj.content_block.type === 'text') {
        seen.text.push(obj.content_block.text || '');
      } else if (type === 'content_block_delta' && obj.delta && obj.delta.type === 'text_delta') {
        seen.text.push(obj.delta.text || ''); // thinking and signature deltas are not the answer
      } else if (type === 'message_delta' && obj.delta && obj.delta.stop_reason) {
        seen.end = obj.delta.stop_reason;
      }
      return type === 'message_stop';
    },
    finish: (stopReason) => (stopReason === 'max_tokens' ? 'length' : 'stop'),
  },
  openai: {
    final: 'data: [DONE]',
    read(_name, data, seen) {
      if (data.trim() === '[DONE]') return true;
      const obj = parseJson(data, 'stream chunk');
      if (obj && obj.error) throw new ProviderFailure(`the provider reported an error inside the stream: ${describeError(obj.error)}`);
      const choice = obj && Array.isArray(obj.choices) ? obj.choices[0] : undefined;
      if (choice) {
        if (choice.delta && typeof choice.delta.content === 'string') seen.text.push(choice.delta.content);
        if (choice.finish_reason) seen.end = choice.finish_reason;
      }
      return false;
    },
    finish: (finishReason) => (finishReason === 'length' ? 'length' : 'stop'),
  },
  codex: {
    final: 'response.completed',
    read(name, data, seen) {
      const { obj, type } = typedEvent(name, data);
      if (type === 'response.output_text.delta') {
        seen.text.push(typeof obj.delta === 'string' ? obj.delta : '');
      } else if (type === 'response.failed') {
        const error = obj.response && obj.response.error;
        throw new ProviderFailure(`the provider reported a failed response inside the stream: ${describeError(error)}`);
      } else if (type === 'error') {
        throw new ProviderFailure(`the provider reported an error inside the stream: ${describeError(obj.error || obj)}`);
      } else if (type === 'response.completed' || type === 'response.incomplete') {
        seen.end = obj.response || {};
        return true;
      }
      return false;
    },
    finish: responseFinish,
    fallback: responseText,
  },
};

/** A decoder of one stream: onEvent returns true at the final event; `final` names it for the error. */
function streamDecoder(kind) {
  const reader = streamReaders[kind];
  const seen = { text: [], end: null };
  return {
    final: reader.final,
    onEvent: (name, data) => reader.read(name, data, seen),
    result: () => ({
      text: seen.text.length || !reader.fallback ? seen.text.join('') : reader.fallback(seen.end),
      finishReason: reader.finish(seen.end),
    }),
  };
}

// --------------------------------------------------------------- client

class HttpProvider {
  /** @param {{kind: string, base_url: string, timeout_ms?: number, api_key?: string}} config */
  constructor(config) {
    this.kind = config.kind;
    this.baseUrl = String(config.base_url || '').replace(/\/+$/, '');
    this.timeoutMs = Number.isInteger(config.timeout_ms) && config.timeout_ms > 0 ? config.timeout_ms : DEFAULT_TIMEOUT_MS;
    this.apiKey = typeof config.api_key === 'string' && config.api_key !== '' ? config.api_key : null;
    this.secrets = secretsOf(this.apiKey, typeof config.base_url === 'string' ? config.base_url : '');
  }

  /**
   * One HTTP exchange for a provider-neutral request. Every failure leaves
   * here with its message and body redacted: the provider's answer (an echoed
   * key), the cut of an excerpt (the start of a key) or fetch (a URL with user
   * info) may have put a credential in it. The final message is redacted, after
   * any excerpt was cut, so a cut piece is found too.
   */
  async complete(request) {
    try {
      return await this.exchange(request);
    } catch (error) {
      if (!(error instanceof ProviderFailure)) throw error;
      // The body stays for stream-required detection, redacted like the message.
      const body = error.body === undefined ? undefined : redact(error.body, this.secrets);
      throw new ProviderFailure(redact(error.message, this.secrets), { status: error.status, body });
    }
  }

  async exchange(request) {
    const encoded = encode(this.kind, request);
    const headers = { ...encoded.headers };
    if (this.apiKey) {
      if (this.kind === 'anthropic') headers['x-api-key'] = this.apiKey;
      else headers.authorization = `Bearer ${this.apiKey}`;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    try {
      const response = await fetch(this.baseUrl + encoded.path, {
        method: encoded.method, headers, body: JSON.stringify(encoded.body), signal: controller.signal,
      });
      if (!response.ok) {
        const body = await response.text();
        throw new ProviderFailure(`the provider answered HTTP ${response.status}: ${excerpt(body) || '(empty body)'}`,
          { status: response.status, body });
      }
      if (!request.stream) return decodeAnswer[this.kind](parseJson(await response.text(), 'answer'));
      return await this.readStream(response);
    } catch (error) {
      if (error instanceof ProviderFailure) throw error;
      if (controller.signal.aborted) throw new ProviderFailure(`the provider did not answer within ${this.timeoutMs} ms (timed out)`);
      const cause = error && error.cause;
      const detail = cause ? `${cause.code || ''} ${cause.message || ''}`.trim() : String(error && error.message);
      throw new ProviderFailure(`cannot reach the provider: ${detail}`);
    } finally {
      clearTimeout(timer);
    }
  }

  async readStream(response) {
    const decoder = streamDecoder(this.kind);
    const parser = new SseParser(decoder.onEvent);
    const text = new TextDecoder('utf-8');
    const reader = response.body.getReader();
    let done = false;
    try {
      for (;;) {
        const { value, done: ended } = await reader.read();
        if (ended) {
          done = parser.push(text.decode()) || parser.end();
          break;
        }
        if (parser.push(text.decode(value, { stream: true }))) {
          done = true;
          break;
        }
      }
    } finally {
      reader.cancel().catch(() => {});
    }
    if (!done) throw new ProviderFailure(`the stream ended before its final event (${decoder.final})`);
    return decoder.result();
  }
}

module.exports = { HttpProvider, SseParser };
