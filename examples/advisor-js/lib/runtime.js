'use strict';
// The runtime: budgets, handlers, transport sessions, cache keys, and the
// scenario operation that drives them.
//
// One Runtime per scenario (the origin's cliRuntime). It owns:
//   - the main agent's use counter, shared by every handler built for it
//     (a new handler each turn; it survives new conversations);
//   - the child counters, a store keyed by agent id (AdvisorBudgetStore);
//   - the process-lifetime cache-key store (its `advisor` slot).
// A Handler is built per distinct (agent, conversation, turn), as the origin
// builds the delegate registry each turn; with no key from the store, each
// handler mints its own.

const crypto = require('crypto');
const path = require('path');
const { AdvisorError, invalid, kind } = require('./errors');
const { readTranscript, isObject } = require('./transcript');
const { buildMessages, checkFileCount } = require('./shape');
const { Workspace } = require('./workspace');
const { STRINGS, budgetNote } = require('./strings');
const { ProviderFailure, ScriptedProvider } = require('./provider');
const { HttpProvider } = require('./http');
const { goTrim } = require('./text');

const DEFAULTS = { model: 'advisor-model', maxTokens: 4096, maxUses: 3, childMaxUses: 1 };

/** transport.fresh-key: 32 lower-case hex digits from 16 random bytes. */
function mintKey() {
  return crypto.randomBytes(16).toString('hex');
}

class Counter {
  constructor(cap) {
    this.cap = cap;
    this.used = 0;
  }

  /**
   * budget.atomic: check and count in one synchronous step (no await in
   * between), so concurrent calls can never both take the last use.
   */
  take() {
    if (this.used >= this.cap) return false;
    this.used += 1;
    return true;
  }
}

class Runtime {
  constructor(config, workDir) {
    const c = config || {};
    this.model = typeof c.model === 'string' ? c.model : DEFAULTS.model;
    this.maxTokens = Number.isInteger(c.max_tokens) ? c.max_tokens : DEFAULTS.maxTokens;
    this.reasoning = typeof c.reasoning === 'string' && c.reasoning !== '' ? c.reasoning : null;
    this.sessionId = typeof c.session_id === 'string' && c.session_id !== '' ? c.session_id : null;
    this.main = new Counter(Number.isInteger(c.max_uses_per_run) ? c.max_uses_per_run : DEFAULTS.maxUses);
    this.childCap = Number.isInteger(c.child_max_uses) ? c.child_max_uses : DEFAULTS.childMaxUses;
    this.children = new Map(); // agent id -> Counter
    // transport.cache-key-store: null or absent is no store; an empty key is no key.
    const store = isObject(c.cache_key_store) ? c.cache_key_store : null;
    this.storeKey = store && typeof store.advisor === 'string' && store.advisor !== '' ? store.advisor : null;
    this.workspace = new Workspace(workDir || process.cwd(), {
      blockedPaths: Array.isArray(c.blocked_paths) ? c.blocked_paths : [],
      confine: c.confine_to_work_dir === true,
      homeDir: c.home_dir,
    });
    this.http = isObject(c.http_provider) ? new HttpProvider(c.http_provider) : null;
    this.handlers = new Map();
    this.requests = []; // every provider-neutral request made, in order
  }

  counterFor(agent) {
    if (agent === null) return this.main;
    if (!this.children.has(agent)) this.children.set(agent, new Counter(this.childCap));
    return this.children.get(agent);
  }

  handlerFor(agent, conversation, turn) {
    const key = JSON.stringify([agent, conversation, turn]);
    if (!this.handlers.has(key)) this.handlers.set(key, new Handler(this, agent));
    return this.handlers.get(key);
  }

  /** The advisor tool is registered for every agent, spent budget or not (budget.tool-stays-registered). */
  toolsFor(_agent) {
    return ['advisor'];
  }
}

class Handler {
  constructor(runtime, agent) {
    this.runtime = runtime;
    this.agent = agent;
    this.cacheKey = runtime.storeKey || mintKey();
    // transport.main-session / subagent-session / no-session
    const session = runtime.sessionId;
    this.transportSession = session === null ? null : agent === null ? `${session}-advisor` : `${session}-subagent-advisor`;
    this.parentSession = session;
  }

  /**
   * One advisor call. The steps run in the origin's order (handler.step-order):
   * input types, the snapshot, the file count, the files, and only then the
   * use; nothing before the use consumes it.
   * @returns {Promise<string>} the note for the main agent
   */
  async call(callIndex, call, at) {
    const rt = this.runtime;
    // 1. Input types (tool.wrong-type-error); unknown keys are ignored.
    const input = call.input === undefined ? {} : call.input;
    if (!isObject(input)) throw invalid(`the advisor input must be an object, got ${kind(input)}`, `${at}.input`);
    const { question, files } = readInput(input, `${at}.input`);
    // 2. The live snapshot.
    if (call.snapshot === null || call.snapshot === undefined) {
      throw new AdvisorError('missing_snapshot', 'no live conversation snapshot to send to the advisor', `${at}.snapshot`);
    }
    const records = readTranscript(call.snapshot, `${at}.snapshot`);
    // 3. The file count, before any file is opened.
    checkFileCount(files.length, `${at}.input.files`);
    // 4. The files.
    const loaded = files.map((given, i) => rt.workspace.load(given, `${at}.input.files[${i}]`));
    const messages = buildMessages(records, question, loaded, rt.workspace.workDir);
    // 5. The use: past the cap, a normal result and no provider call.
    const counter = rt.counterFor(this.agent);
    if (!counter.take()) return budgetNote(counter.used, counter.cap);
    // 6. The request; a failure from here on keeps the use spent.
    const request = {
      model: rt.model,
      messages,
      tools: [],
      max_tokens: rt.maxTokens,
      reasoning: rt.reasoning,
      stream: rt.reasoning !== null, // streaming.reasoning-streams / non-streaming-default
      prompt_cache_key: this.cacheKey,
      transport_session: this.transportSession,
      parent_session: this.parentSession,
      advisor_cache_profile: true,
    };
    const provider = rt.http || new ScriptedProvider(call.provider);
    const send = (req) => {
      rt.requests.push({ call: callIndex, ...req });
      return provider.complete(req);
    };
    let answer;
    try {
      try {
        answer = await send(request);
      } catch (error) {
        // streaming.stream-required-retry: once, as a stream; nothing else is retried.
        if (request.stream || !(error instanceof ProviderFailure) || !error.isStreamRequired()) throw error;
        answer = await send({ ...request, stream: true });
      }
    } catch (error) {
      if (error instanceof ProviderFailure) throw new AdvisorError('provider_error', error.message);
      throw error;
    }
    return note(answer);
  }
}

/** tool.*: the question (a string) and files (an array of strings), both optional. */
function readInput(input, at) {
  let question;
  if ('question' in input) {
    if (typeof input.question !== 'string') {
      throw invalid(`question must be a string, got ${kind(input.question)}`, `${at}.question`);
    }
    question = input.question;
  }
  let files = [];
  if ('files' in input) {
    if (!Array.isArray(input.files)) throw invalid(`files must be an array of strings, got ${kind(input.files)}`, `${at}.files`);
    input.files.forEach((item, i) => {
      if (typeof item !== 'string') throw invalid(`files[${i}] must be a string, got ${kind(item)}`, `${at}.files[${i}]`);
    });
    files = input.files;
  }
  return { question, files };
}

/**
 * handler.note-trimmed / token-limit-note / empty-answer-note: the answer
 * trimmed; on the token limit, a blank line and the note; an empty answer is
 * the fixed no-content note (still followed by the token-limit note when the
 * limit is why it is empty).
 */
function note({ text, finishReason }) {
  let out = goTrim(text || '');
  if (out === '') out = STRINGS.no_content_note;
  if (finishReason === 'length') out += '\n\n' + STRINGS.token_limit_note;
  return out;
}

// ----------------------------------------------------------------- scenario

/** The scenario operation: run the steps against one fresh runtime. */
async function scenario(params) {
  if (!isObject(params)) throw invalid('params must be an object');
  if (!Array.isArray(params.steps)) throw invalid('steps must be an array', 'steps');
  if (params.runtime !== undefined && params.runtime !== null && !isObject(params.runtime)) {
    throw invalid('runtime must be an object', 'runtime');
  }
  if (params.work_dir !== undefined && typeof params.work_dir !== 'string') throw invalid('work_dir must be a string', 'work_dir');
  const home = isObject(params.runtime) ? params.runtime.home_dir : undefined;
  if (home !== undefined && (typeof home !== 'string' || !path.isAbsolute(home) || home.includes('\0'))) {
    throw invalid('home_dir must be an absolute path', 'runtime.home_dir');
  }
  const rt = new Runtime(params.runtime, params.work_dir);
  const calls = [];
  const tools = [];
  let next = 0; // index of the next call in `calls`

  const run = async (index, call, at) => {
    if (!isObject(call)) {
      calls[index] = invalid('a call must be an object', at).toAnswer();
      return;
    }
    const agent = typeof call.agent === 'string' ? call.agent : null;
    const handler = rt.handlerFor(agent, call.conversation ?? 1, call.turn ?? 1);
    try {
      calls[index] = { result: await handler.call(index, call, at) };
    } catch (error) {
      if (!(error instanceof AdvisorError)) throw error;
      calls[index] = error.toAnswer();
    }
  };

  for (const [s, step] of params.steps.entries()) {
    if (!isObject(step)) throw invalid('a step must be an object', `steps[${s}]`);
    if ('call' in step) {
      await run(next++, step.call, `steps[${s}].call`);
    } else if ('concurrent' in step) {
      if (!Array.isArray(step.concurrent)) throw invalid('concurrent must be an array', `steps[${s}].concurrent`);
      // The calls of a concurrent step are in flight together.
      await Promise.all(step.concurrent.map((call, j) => run(next++, call, `steps[${s}].concurrent[${j}]`)));
    } else if ('tools' in step) {
      const agent = isObject(step.tools) && typeof step.tools.agent === 'string' ? step.tools.agent : null;
      tools.push(rt.toolsFor(agent));
    } else {
      throw invalid('a step is a call, a concurrent group or a tools check', `steps[${s}]`);
    }
  }
  // In call order (a stable sort keeps a call's retry after its first request).
  const providerRequests = rt.requests.slice().sort((a, b) => a.call - b.call);
  return { calls, tools, provider_requests: providerRequests };
}

module.exports = { scenario, Runtime, note };
