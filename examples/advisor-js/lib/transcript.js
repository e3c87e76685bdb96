'use strict';
// transcript.roles / transcript.malformed-rejected: the model of a snapshot.
// A message that does not fit is rejected with an error naming its index and
// field; nothing is ever dropped silently. Unknown extra fields are ignored.

const { invalid, kind } = require('./errors');

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Validate a snapshot and return it as plain records:
 * {role, content (string, '' for null/absent), toolCalls: [{name, arguments}], name}.
 * Reasoning content and metadata are checked for type and then left behind
 * (flatten.reasoning-cleared, flatten.metadata-cleared). The input is not mutated.
 * @param {*} transcript the snapshot
 * @param {string} where its path in the params, e.g. "transcript"
 */
function readTranscript(transcript, where) {
  if (!Array.isArray(transcript)) {
    throw invalid(`${where}: the snapshot must be an array of messages, got ${kind(transcript)}`, where);
  }
  return transcript.map((message, index) => readMessage(message, `${where}[${index}]`));
}

function readMessage(message, at) {
  if (!isObject(message)) throw invalid(`${at}: a message must be an object, got ${kind(message)}`, at);
  const { role } = message;
  if (typeof role !== 'string' || !ROLES.has(role)) {
    const got = role === undefined ? 'no role' : `role ${JSON.stringify(role)}`;
    throw invalid(`${at}.role: ${got}; the role is system, user, assistant or tool`, `${at}.role`);
  }
  const content = optionalString(message, 'content', at);
  optionalString(message, 'reasoning_content', at);
  if (message.metadata !== undefined && message.metadata !== null && !isObject(message.metadata)) {
    throw invalid(`${at}.metadata: provider metadata must be an object, got ${kind(message.metadata)}`, `${at}.metadata`);
  }
  const record = { role, content: content === null ? '' : content, toolCalls: [], name: '' };

  const calls = message.tool_calls;
  if (calls !== undefined && calls !== null) {
    if (!Array.isArray(calls)) {
      throw invalid(`${at}.tool_calls: tool calls must be an array, got ${kind(calls)}`, `${at}.tool_calls`);
    }
    if (role !== 'assistant' && calls.length > 0) {
      throw invalid(`${at}.tool_calls: only assistant messages carry tool calls`, `${at}.tool_calls`);
    }
    record.toolCalls = calls.map((call, j) => readToolCall(call, `${at}.tool_calls[${j}]`));
  }

  if (role === 'tool') {
    if (typeof message.name !== 'string') {
      throw invalid(`${at}.name: a tool message names its tool with a string, got ${kind(message.name)}`, `${at}.name`);
    }
    record.name = message.name;
    optionalString(message, 'tool_call_id', at);
  } else if (message.name !== undefined && message.name !== null && typeof message.name !== 'string') {
    throw invalid(`${at}.name: the name must be a string, got ${kind(message.name)}`, `${at}.name`);
  }
  return record;
}

function readToolCall(call, at) {
  if (!isObject(call)) throw invalid(`${at}: a tool call must be an object, got ${kind(call)}`, at);
  if (typeof call.name !== 'string') {
    throw invalid(`${at}.name: a tool call's name must be a string, got ${kind(call.name)}`, `${at}.name`);
  }
  if (!isObject(call.arguments)) {
    throw invalid(`${at}.arguments: tool-call arguments must be a JSON object, got ${kind(call.arguments)}`,
      `${at}.arguments`);
  }
  if (call.id !== undefined && call.id !== null && typeof call.id !== 'string') {
    throw invalid(`${at}.id: a tool-call id must be a string, got ${kind(call.id)}`, `${at}.id`);
  }
  return { name: call.name, arguments: call.arguments };
}

/** A field that is a string, null or absent; returns the string or null. */
function optionalString(message, field, at) {
  const value = message[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    throw invalid(`${at}.${field}: must be a string or null, got ${kind(value)}`, `${at}.${field}`);
  }
  return value;
}

module.exports = { readTranscript, isObject };
