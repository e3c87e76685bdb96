'use strict';
// The <args-json> of a tool-call line, byte for byte as the origin's Go
// encoder (encoding/json.Marshal of the decoded arguments) writes it:
//
//   - compact, object keys sorted by their UTF-8 bytes (Go sorts map keys as
//     Go strings, which compare bytewise; JavaScript's sort compares UTF-16);
//   - HTML-safe: <, >, & escaped as \u003c, \u003e, \u0026, and U+2028, U+2029
//     as \u2028, \u2029;
//   - control characters as \b \f \n \r \t (Go 1.22 and later) or \u00XX;
//   - numbers are float64 (the origin decodes arguments into interface{}):
//     shortest round-trip digits, exponent form below 1e-6 and from 1e21 on;
//   - a byte that is not part of well-formed UTF-8 (the dangling bytes of an
//     elision cut) is written as the escape \ufffd.

const { sequenceLength } = require('./text');

/** An elided string: raw bytes (prefix + marker) that may hold dangling bytes. */
class RawString {
  constructor(bytes) {
    this.bytes = bytes;
  }
}

const HEX = '0123456789abcdef';
const SHORT_ESCAPES = { 0x22: '\\"', 0x5c: '\\\\', 0x08: '\\b', 0x0c: '\\f', 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t' };

function encodeStringBytes(buf) {
  const out = ['"'];
  let start = 0; // start of a run of bytes copied as they are
  const flush = (end) => {
    if (end > start) out.push(buf.toString('utf8', start, end));
  };
  let i = 0;
  while (i < buf.length) {
    const b = buf[i];
    if (b < 0x80) {
      if (b >= 0x20 && b !== 0x22 && b !== 0x5c && b !== 0x3c && b !== 0x3e && b !== 0x26) {
        i++;
        continue;
      }
      flush(i);
      out.push(SHORT_ESCAPES[b] || '\\u00' + HEX[b >> 4] + HEX[b & 0xf]);
      i++;
      start = i;
      continue;
    }
    const size = sequenceLength(buf, i);
    if (size === 0) {
      flush(i);
      out.push('\\ufffd');
      i++;
      start = i;
      continue;
    }
    // U+2028 is E2 80 A8, U+2029 is E2 80 A9.
    if (size === 3 && b === 0xe2 && buf[i + 1] === 0x80 && (buf[i + 2] === 0xa8 || buf[i + 2] === 0xa9)) {
      flush(i);
      out.push(buf[i + 2] === 0xa8 ? '\\u2028' : '\\u2029');
      i += 3;
      start = i;
      continue;
    }
    i += size;
  }
  flush(i);
  out.push('"');
  return out.join('');
}

/** Go's float64 encoding; JavaScript's Number#toString uses the same digits and thresholds. */
function encodeNumber(n) {
  if (!Number.isFinite(n)) throw new Error('a JSON number must be finite');
  if (Object.is(n, -0)) return '-0';
  return String(n); // '1e-7', '1e+21', '0.000001', '100000000000000000000' exactly as Go writes them
}

function compareBytes(a, b) {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function goMarshal(value) {
  if (value === null) return 'null';
  if (value instanceof RawString) return encodeStringBytes(value.bytes);
  switch (typeof value) {
    case 'string':
      return encodeStringBytes(Buffer.from(value, 'utf8'));
    case 'number':
      return encodeNumber(value);
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      break;
  }
  if (Array.isArray(value)) return '[' + value.map(goMarshal).join(',') + ']';
  const keys = Object.keys(value).sort(compareBytes);
  return '{' + keys.map((key) => encodeStringBytes(Buffer.from(key, 'utf8')) + ':' + goMarshal(value[key])).join(',') + '}';
}

module.exports = { RawString, goMarshal };
