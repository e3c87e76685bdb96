'use strict';
// Provider request encodings of a provider-neutral request:
//   anthropic  POST /v1/messages       (Messages API, cache breakpoints)
//   openai     POST /chat/completions  (OpenAI-compatible chat; base URL ends in /v1)
//   codex      POST /responses         (Responses API on the ChatGPT backend)
// Headers are lower-case and never carry credentials (lib/http.js adds them).

const { invalid, kind } = require('./errors');
const { isObject } = require('./transcript');
const { goTrim } = require('./text');

const ANTHROPIC_VERSION = '2023-06-01';

// ------------------------------------------------------------ anthropic

const ADVISOR_CACHE = Object.freeze({ type: 'ephemeral', ttl: '1h' }); // anthropicAdvisorCacheTTL
const DEFAULT_CACHE = Object.freeze({ type: 'ephemeral' }); // no ttl: the API's 5m default
const BREAKPOINT_SPACING = 15; // anthropicAdvisorBreakpointSpacing
const MAX_BREAKPOINTS = 4; // anthropicMaxCacheBreakpoints
const MIN_THINKING_BUDGET = 1024; // the API's minimum budget_tokens

// Thinking budgets per reasoning effort (an unknown effort gets medium's).
const THINKING_BUDGETS = { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 32768, max: 32768 };

/**
 * wire.reasoning: thinking enabled with the effort's budget, kept below
 * max_tokens; a budget under the API's minimum sends no thinking at all.
 */
function thinkingFor(reasoning, maxTokens) {
  if (!reasoning) return null;
  const budget = Math.min(THINKING_BUDGETS[reasoning] ?? THINKING_BUDGETS.medium, maxTokens - 1);
  return budget >= MIN_THINKING_BUDGET ? { type: 'enabled', budget_tokens: budget } : null;
}

/**
 * Cache breakpoints (breakpoints.*), on the wire blocks.
 *
 * Advisor profile: every marker is {ephemeral, 1h}. The last system block is
 * marked; then the blocks of every message but the final one are walked
 * backward from distance 0 (the last block of the second-to-last message),
 * marking each distance that is a multiple of 15 while the request holds
 * fewer than 4 markers. The final message is never marked. Spacing 15 keeps
 * each earlier breakpoint within the API's 20-block cache look-back.
 *
 * Default profile (main agent, delegation): {ephemeral} without ttl on the
 * last system block, the final message and the second-to-last user message.
 * All markers of one request share a ttl, so a 1h never follows a 5m one.
 */
function placeBreakpoints(system, messages, advisor) {
  const mark = (block, control) => {
    block.cache_control = { ...control };
  };
  let marks = 0;
  if (system.length > 0) {
    mark(system[system.length - 1], advisor ? ADVISOR_CACHE : DEFAULT_CACHE);
    marks++;
  }
  if (messages.length === 0) return;
  const lastBlock = (message) => message.content[message.content.length - 1];
  if (advisor) {
    const tail = messages.slice(0, -1).flatMap((message) => message.content);
    for (let distance = 0; distance < tail.length && marks < MAX_BREAKPOINTS; distance += BREAKPOINT_SPACING) {
      mark(tail[tail.length - 1 - distance], ADVISOR_CACHE);
      marks++;
    }
    return;
  }
  const final = messages.length - 1;
  mark(lastBlock(messages[final]), DEFAULT_CACHE);
  const users = messages.map((m, i) => (m.role === 'user' ? i : -1)).filter((i) => i >= 0);
  if (users.length >= 2) mark(lastBlock(messages[users[users.length - 2]]), DEFAULT_CACHE);
}

function encodeAnthropic(request) {
  // wire.anthropic-system-blocks: system messages blank after trimming are skipped.
  const system = request.messages
    .filter((m) => m.role === 'system' && goTrim(m.content) !== '')
    .map((m) => ({ type: 'text', text: m.content }));
  // wire.anthropic-messages / anthropic-nonempty: one text block per message;
  // a message with no text becomes no message at all (the API refuses empty blocks).
  const messages = request.messages
    .filter((m) => m.role !== 'system' && m.content !== '')
    .map((m) => ({ role: m.role, content: [{ type: 'text', text: m.content }] }));
  placeBreakpoints(system, messages, request.advisor_cache_profile === true);
  const body = { model: request.model, max_tokens: request.max_tokens };
  if (system.length > 0) body.system = system;
  body.messages = messages;
  const thinking = thinkingFor(request.reasoning, request.max_tokens);
  if (thinking) body.thinking = thinking;
  if (request.stream) body.stream = true;
  // wire.anthropic-no-key: the cache key is never sent; breakpoints do the caching.
  const headers = { 'content-type': 'application/json', 'anthropic-version': ANTHROPIC_VERSION };
  if (request.stream) headers.accept = 'text/event-stream';
  return { method: 'POST', path: '/v1/messages', headers, body };
}

// --------------------------------------------------------------- openai

function encodeOpenAI(request) {
  const body = {
    model: request.model,
    messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
    max_tokens: request.max_tokens,
  };
  if (request.prompt_cache_key) body.prompt_cache_key = request.prompt_cache_key; // wire.openai-cache-key
  if (request.reasoning) body.reasoning_effort = request.reasoning;
  const headers = { 'content-type': 'application/json' };
  if (request.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true }; // wire.openai-stream-usage
    headers.accept = 'text/event-stream';
  }
  return { method: 'POST', path: '/chat/completions', headers, body };
}

// ---------------------------------------------------------------- codex

function encodeCodex(request) {
  // wire.codex-instructions: system messages, trimmed, blank ones skipped, joined by a blank line.
  const instructions = request.messages
    .filter((m) => m.role === 'system')
    .map((m) => goTrim(m.content))
    .filter((t) => t !== '')
    .join('\n\n');
  const input = request.messages
    .filter((m) => m.role !== 'system' && m.content !== '')
    .map((m) => (m.role === 'assistant'
      ? { type: 'message', role: 'assistant', content: m.content }
      : { type: 'message', role: m.role, content: [{ type: 'input_text', text: m.content }] }));
  const body = { model: request.model, input, max_output_tokens: request.max_tokens, store: false };
  if (instructions !== '') body.instructions = instructions;
  const headers = { 'content-type': 'application/json' };
  // wire.codex-affinity: a non-empty key goes in the body and the affinity headers.
  if (request.prompt_cache_key) {
    body.prompt_cache_key = request.prompt_cache_key;
    headers['session-id'] = request.prompt_cache_key;
    headers['thread-id'] = request.prompt_cache_key;
  }
  if (request.stream) {
    body.stream = true;
    headers.accept = 'text/event-stream';
  }
  if (request.reasoning) body.reasoning = { effort: request.reasoning };
  return { method: 'POST', path: '/responses', headers, body };
}

// ------------------------------------------------------------- dispatch

const ENCODERS = { anthropic: encodeAnthropic, openai: encodeOpenAI, codex: encodeCodex };

function encode(provider, request) {
  const encoder = ENCODERS[provider];
  if (!encoder) throw invalid(`provider: unknown provider ${JSON.stringify(provider)}`, 'provider');
  return encoder(request);
}

/** Check the neutral request's fields that the encoders read. */
function readNeutral(request) {
  if (!isObject(request)) throw invalid(`request: must be an object, got ${kind(request)}`, 'request');
  if (!Array.isArray(request.messages)) throw invalid('request.messages: must be an array', 'request.messages');
  request.messages.forEach((m, i) => {
    const at = `request.messages[${i}]`;
    if (!isObject(m) || !['system', 'user', 'assistant'].includes(m.role)) throw invalid(`${at}.role: system, user or assistant`, `${at}.role`);
    if (typeof m.content !== 'string') throw invalid(`${at}.content: must be a string`, `${at}.content`);
  });
  if (typeof request.model !== 'string') throw invalid('request.model: must be a string', 'request.model');
  if (!Number.isInteger(request.max_tokens)) throw invalid('request.max_tokens: must be an integer', 'request.max_tokens');
  return request;
}

/** The encode operation. */
function encodeOp(params) {
  if (!isObject(params)) throw invalid('params must be an object');
  return encode(params.provider, readNeutral(params.request));
}

module.exports = { encode, encodeOp, thinkingFor };
