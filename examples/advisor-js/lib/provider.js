'use strict';
// Providers behind the handler: the scripted one of the scenario operation
// (each call answers from its own list of replies), and the failure type that
// both it and the HTTP provider (lib/http.js) raise.

/** A failed provider call. `status` is the HTTP status when there was one. */
class ProviderFailure extends Error {
  constructor(message, { status = null, body = '' } = {}) {
    super(message);
    this.status = status;
    this.body = body;
  }

  /**
   * streaming.stream-required-detection: an HTTP 400 whose body, lower-cased,
   * holds "stream" and either "must" or "required" (the ChatGPT backend says
   * 400 {"detail":"Stream must be set to true"}).
   */
  isStreamRequired() {
    if (this.status !== 400) return false;
    const body = String(this.body).toLowerCase();
    return body.includes('stream') && (body.includes('must') || body.includes('required'));
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Answers from the replies scripted for one call, in order. */
class ScriptedProvider {
  constructor(replies) {
    this.replies = Array.isArray(replies) ? replies.slice() : [];
  }

  /** @returns {Promise<{text: string, finishReason: string}>} */
  async complete(_request) {
    const reply = this.replies.shift();
    if (reply === undefined) throw new ProviderFailure('the provider gave no answer (no scripted reply left)');
    if (reply.delay_ms) await sleep(reply.delay_ms);
    if (reply.error !== undefined && reply.error !== null) {
      const status = Number.isInteger(reply.status) ? reply.status : null;
      const what = status === null ? String(reply.error) : `HTTP ${status}: ${reply.error}`;
      throw new ProviderFailure(`the provider call failed: ${what}`, { status, body: String(reply.error) });
    }
    return { text: typeof reply.answer === 'string' ? reply.answer : '', finishReason: reply.finish_reason || 'stop' };
  }
}

module.exports = { ProviderFailure, ScriptedProvider, sleep };
