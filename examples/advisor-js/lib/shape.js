'use strict';
// Shaping: a snapshot, the caller's question and loaded files -> the
// provider-neutral messages of the advisor request.
//
//   [system prompt] [flattened snapshot ...] [one trailing user message]
//
// The trailing user message holds, in order: the in-flight block, the files,
// the question and the request for guidance. Everything that can change from
// call to call lives in that last message, so the prefix (system prompt and
// snapshot) stays byte-identical for the provider's prompt cache.

const path = require('path');
const { STRINGS } = require('./strings');
const { AdvisorError, invalid, kind } = require('./errors');
const { readTranscript, isObject } = require('./transcript');
const { RawString, goMarshal } = require('./gojson');
const text = require('./text');

const ARG_LIMIT = 1000; // maxToolArgStringLen
const FILE_LIMIT = 32768; // maxAdvisorFileBytes
const FILES_TOTAL = 98304; // 96 KiB shared by all files of a call
const QUESTION_LIMIT = 4000;
const MAX_FILES = 8;

// ------------------------------------------------------------------ elision

/**
 * elision.any-depth / non-strings-unchanged: every string value at any depth
 * over 1000 bytes becomes its first 1000 bytes and the marker; keys, numbers,
 * booleans and null are kept. Elided strings stay raw bytes (RawString) so the
 * Go encoder can write each dangling byte as \ufffd. Returns a new tree.
 */
function capArguments(value) {
  if (typeof value === 'string') {
    const bytes = text.utf8(value);
    return bytes.length > ARG_LIMIT ? new RawString(text.elideBytes(bytes, ARG_LIMIT)) : value;
  }
  if (Array.isArray(value)) return value.map(capArguments);
  if (isObject(value)) {
    const out = Object.create(null); // a null prototype: a "__proto__" key is a plain key
    for (const key of Object.keys(value)) out[key] = capArguments(value[key]);
    return out;
  }
  return value;
}

// --------------------------------------------------------------- flattening

/** flatten.tool-call-line: `[tool_call: <name> <args-json>]`; the call id is never shown. */
function toolCallLine(call) {
  return `[tool_call: ${call.name} ${goMarshal(capArguments(call.arguments))}]`;
}

/**
 * One snapshot message -> one rendered message (role and text only).
 * Reasoning content and metadata were already left behind by readTranscript.
 */
function flattenMessage(record) {
  if (record.role === 'assistant' && record.toolCalls.length > 0) {
    const lines = record.content !== '' ? [record.content] : [];
    for (const call of record.toolCalls) lines.push(toolCallLine(call));
    return { role: 'assistant', content: lines.join('\n') };
  }
  if (record.role === 'tool') {
    // flatten.advisor-note: an earlier advisor answer reads as a revisable opinion.
    const prefix = record.name === 'advisor' ? STRINGS.advisor_note_prefix : `[tool_result: ${record.name}]`;
    return { role: 'user', content: `${prefix}\n${record.content === '' ? '(empty)' : record.content}` };
  }
  return { role: record.role, content: record.content };
}

// ---------------------------------------------------------------- in flight

/**
 * inflight.*: only the last message is looked at. A trailing assistant message
 * leaves the transcript; its text (not its calls), trimmed, opens the final
 * message under the label unless it is blank. Any other last message stays.
 */
function splitInFlight(records) {
  const last = records[records.length - 1];
  if (!last || last.role !== 'assistant') return { kept: records, block: '' };
  const trimmed = text.goTrim(last.content);
  const block = trimmed === '' ? '' : `${STRINGS.inflight_label}\n${trimmed}\n\n`;
  return { kept: records.slice(0, -1), block };
}

// ------------------------------------------------------------------- dedupe

const LINE_FIELDS = ['start_line', 'end_line', 'total_lines'];

/**
 * dedupe.read-result-shape / undecodable-never-full: the read object of a
 * result of the `read` tool, or null when its content does not decode as one
 * (a compacted summary, an array, a field of the wrong type...).
 */
function decodeRead(content) {
  let value;
  try {
    value = JSON.parse(content);
  } catch {
    return null;
  }
  if (!isObject(value)) return null;
  const read = { path: '', start_line: 0, end_line: 0, total_lines: 0, file_hash: '', output: '' };
  for (const field of ['path', 'file_hash', 'output']) {
    const v = value[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') return null;
    read[field] = v;
  }
  for (const field of [...LINE_FIELDS, 'next_offset']) {
    const v = value[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isInteger(v)) return null; // Go decodes these into ints
    read[field] = v;
  }
  return read;
}

/** dedupe.full-read-definition. */
function isFullRead(read) {
  return read.start_line === 1 && read.end_line === read.total_lines && read.total_lines > 0
    && !read.output.includes(STRINGS.line_truncation_marker);
}

/** A path as compared for dedupe: normalised, without a leading "./". */
function samePathKey(p, workDir) {
  let out = p;
  if (workDir && path.isAbsolute(out)) {
    const relative = path.relative(workDir, out);
    if (!relative.startsWith('..') && !path.isAbsolute(relative)) out = relative;
  }
  out = path.posix.normalize(out.split(path.sep).join('/'));
  return out.startsWith('./') ? out.slice(2) : out;
}

/**
 * dedupe.full-read-match / most-recent-full-read / over-cap-never: which files
 * the snapshot already holds. For each file not over 32768 bytes (by its true
 * size), the most recent full read of the same path decides: a matching
 * file_hash drops the content; partial or undecodable reads are skipped.
 */
function dedupeAgainstSnapshot(files, records, workDir) {
  const latest = new Map(); // path key -> file_hash of its most recent full read
  for (const record of records) {
    if (record.role !== 'tool' || record.name !== 'read') continue;
    const read = decodeRead(record.content);
    if (read === null || !isFullRead(read)) continue;
    latest.set(samePathKey(read.path, workDir), read.file_hash);
  }
  return files.map((file) => {
    if (file.size > FILE_LIMIT) return false;
    const hash = latest.get(samePathKey(file.path, workDir));
    return hash !== undefined && hash === text.fileHash(file.bytes);
  });
}

// -------------------------------------------------------------------- files

/**
 * files.per-file-cap / true-size / aggregate-cap: per file, the first 32768
 * bytes and the marker with the true size; then the files share 98304 bytes
 * in order (a file longer than what remains is elided to what remains, its
 * marker counting its per-file-capped length). A deduped file takes nothing.
 * Caps count original bytes; decoding to text comes last.
 */
function capFiles(files, deduped) {
  let remaining = FILES_TOTAL;
  return files.map((file, index) => {
    if (deduped[index]) return null;
    let content = text.elideBytes(file.bytes, FILE_LIMIT, file.size);
    if (content.length > remaining) content = text.elideBytes(content, remaining);
    remaining = Math.max(0, remaining - content.length);
    return content;
  });
}

/** files.render-format and dedupe.notice. */
function renderFiles(files, capped) {
  return files.map((file, index) => {
    if (capped[index] === null) return `File: ${file.path}\n${STRINGS.deduped_file_notice}\n\n`;
    return `File: ${file.path}\n\`\`\`\n${text.goDecode(capped[index])}\n\`\`\`\n\n`;
  }).join('');
}

// ----------------------------------------------------------------- question

/** question.*: trimmed (Go's space set), omitted when blank, capped at 4000 bytes, then a blank line. */
function questionBlock(question) {
  const trimmed = text.goTrim(question || '');
  return trimmed === '' ? '' : text.elideString(trimmed, QUESTION_LIMIT) + '\n\n';
}

// ------------------------------------------------------------------ request

/**
 * The messages of one advisor request.
 * @param {object[]} records a validated snapshot (readTranscript)
 * @param {string|undefined} question
 * @param {{path: string, bytes: Buffer, size: number}[]} files loaded files, at most 8
 * @param {string} [workDir] lets absolute read paths inside it match relative display paths
 */
function buildMessages(records, question, files, workDir) {
  const { kept, block } = splitInFlight(records);
  const deduped = dedupeAgainstSnapshot(files, records, workDir);
  const final = block + renderFiles(files, capFiles(files, deduped)) + questionBlock(question)
    + STRINGS.guidance_request;
  return [
    { role: 'system', content: STRINGS.system_prompt },
    ...kept.map(flattenMessage),
    { role: 'user', content: final },
  ];
}

/** files.max-count: more than 8 files (duplicates count) is an error. */
function checkFileCount(count, at) {
  if (count > MAX_FILES) {
    throw new AdvisorError('too_many_files', `files: too many files: ${count} given, at most ${MAX_FILES} allowed`, at);
  }
}

/** The `files` param of the shape operation -> loaded files. */
function readShapeFiles(files) {
  if (files === undefined || files === null) return [];
  if (!Array.isArray(files)) throw invalid(`files: must be an array, got ${kind(files)}`, 'files');
  checkFileCount(files.length, 'files');
  return files.map((file, index) => {
    const at = `files[${index}]`;
    if (!isObject(file)) throw invalid(`${at}: a file must be an object, got ${kind(file)}`, at);
    if (typeof file.path !== 'string') throw invalid(`${at}.path: must be a string`, `${at}.path`);
    let bytes;
    if (typeof file.content === 'string' && file.content_base64 === undefined) {
      bytes = text.utf8(file.content);
    } else if (typeof file.content_base64 === 'string' && file.content === undefined) {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(file.content_base64) || file.content_base64.length % 4 !== 0) {
        throw invalid(`${at}.content_base64: not base64`, `${at}.content_base64`);
      }
      bytes = Buffer.from(file.content_base64, 'base64');
    } else {
      throw invalid(`${at}: give exactly one of content (a string) and content_base64`, `${at}.content`);
    }
    let size = bytes.length;
    if (file.size !== undefined && file.size !== null) {
      if (!Number.isInteger(file.size) || file.size < 0) {
        throw invalid(`${at}.size: must be a non-negative integer`, `${at}.size`);
      }
      size = file.size;
    }
    return { path: file.path, bytes, size };
  });
}

/** The shape operation. */
function shape(params) {
  if (!isObject(params)) throw invalid('params must be an object');
  const records = readTranscript(params.transcript, 'transcript');
  const { question } = params;
  if (question !== undefined && question !== null && typeof question !== 'string') {
    throw invalid(`question: must be a string, got ${kind(question)}`, 'question');
  }
  const files = readShapeFiles(params.files);
  return { messages: buildMessages(records, question, files) };
}

module.exports = {
  shape, buildMessages, checkFileCount, capArguments, toolCallLine, fileHash: text.fileHash,
  FILE_LIMIT, MAX_FILES,
};
