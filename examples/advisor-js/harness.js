#!/usr/bin/env node
'use strict';
// The conformance harness of advisor-js: JSON lines over stdin and stdout
// (see docs/harness.md). One request per line; exactly one answer line per
// request, in order, even when an operation is asynchronous. Logs go to stderr.

const readline = require('readline');
const { DESCRIPTION } = require('./lib/strings');
const { AdvisorError } = require('./lib/errors');
const { shape } = require('./lib/shape');
const { toolDefinition } = require('./lib/tool');
const { scenario } = require('./lib/runtime');
const { encodeOp } = require('./lib/wire');

const PROTOCOL = 1;

const OPERATIONS = {
  describe: () => DESCRIPTION,
  shape,
  tool_definition: () => toolDefinition(),
  scenario,
  encode: encodeOp,
};

let started = false;

/** The answer to one request: {result} or {failure}. */
async function answer(op, params) {
  if (op === 'start') {
    if (!params || params.protocol !== PROTOCOL) {
      return { failure: { message: `protocol ${JSON.stringify(params && params.protocol)} is not supported; this harness speaks ${PROTOCOL}` } };
    }
    started = true;
    return { result: DESCRIPTION };
  }
  if (op === 'stop') return { result: {} };
  if (!started) return { failure: { message: 'the first request must be start' } };
  const operation = OPERATIONS[op];
  if (!operation) return { failure: { message: `no such operation: ${op}` } };
  try {
    return { result: await operation(params || {}) };
  } catch (error) {
    if (error instanceof AdvisorError) return { result: error.toAnswer() };
    process.stderr.write(`advisor-js: ${op} failed: ${error && error.stack ? error.stack : error}\n`);
    return { failure: { message: `${op}: ${error && error.message ? error.message : error}` } };
  }
}

// Writes to a pipe are asynchronous: what the pipe cannot take yet waits in
// memory, and process.exit() drops it. So every answer is written with a
// callback, and the harness exits only once the last one has been flushed.
let flushed = Promise.resolve();

function write(message) {
  const line = JSON.stringify(message) + '\n';
  flushed = new Promise((resolve) => process.stdout.write(line, () => resolve()));
}

/** Exit with `code` once every answer written so far has reached stdout. */
function exitAfterFlush(code) {
  flushed.then(() => process.exit(code));
}

// The reader went away (EPIPE): nobody will read another answer.
process.stdout.on('error', () => process.exit(0));

function main() {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  let queue = Promise.resolve(); // answers go out in request order
  lines.on('line', (line) => {
    if (!line.trim()) return;
    queue = queue.then(async () => {
      let request;
      try {
        request = JSON.parse(line);
      } catch (error) {
        process.stderr.write(`advisor-js: unreadable request (${error.message}): ${line.slice(0, 200)}\n`);
        return;
      }
      const { seq, op, params } = request;
      const reply = await answer(op, params);
      write({ seq, ...reply });
      if (op === 'stop') exitAfterFlush(0);
    });
  });
  lines.on('close', () => {
    queue.then(() => exitAfterFlush(0));
  });
}

main();
