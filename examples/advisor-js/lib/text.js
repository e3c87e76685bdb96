'use strict';
// Byte-level text rules of the spec: UTF-8 lengths, Go's per-byte U+FFFD
// decoding, Go's white-space set, the elision marker and the file hash.
//
// JavaScript strings are UTF-16, but every length in the spec is a UTF-8 byte
// length, so everything that counts or cuts works on Buffers.

const { isUtf8 } = require('buffer');

/** elision.marker-format: `…[elided, N bytes total]` (… is U+2026, N in decimal). */
function marker(total) {
  return '\u2026[elided, ' + String(total) + ' bytes total]';
}

/** The UTF-8 bytes of a string. */
function utf8(text) {
  return Buffer.from(text, 'utf8');
}

/**
 * The length of a well-formed UTF-8 sequence starting at `i`, or 0 when the
 * byte at `i` does not start one. This is table 3-7 of the Unicode standard
 * ("well-formed UTF-8 byte sequences"), which is exactly what Go's decoder
 * accepts: no overlong forms, no encoded surrogates, nothing above U+10FFFF.
 */
function sequenceLength(buf, i) {
  const n = buf.length;
  const b0 = buf[i];
  if (b0 < 0x80) return 1;
  let size;
  let lo = 0x80;
  let hi = 0xbf; // the range of the second byte; later bytes are always 80..BF
  if (b0 >= 0xc2 && b0 <= 0xdf) size = 2;
  else if (b0 === 0xe0) { size = 3; lo = 0xa0; }
  else if ((b0 >= 0xe1 && b0 <= 0xec) || b0 === 0xee || b0 === 0xef) size = 3;
  else if (b0 === 0xed) { size = 3; hi = 0x9f; }
  else if (b0 === 0xf0) { size = 4; lo = 0x90; }
  else if (b0 >= 0xf1 && b0 <= 0xf3) size = 4;
  else if (b0 === 0xf4) { size = 4; hi = 0x8f; }
  else return 0; // 80..C1 and F5..FF never start a sequence
  if (i + size > n) return 0;
  const b1 = buf[i + 1];
  if (b1 < lo || b1 > hi) return 0;
  for (let k = 2; k < size; k++) {
    const b = buf[i + k];
    if (b < 0x80 || b > 0xbf) return 0;
  }
  return size;
}

/**
 * files.invalid-utf8 / elision.byte-cut: decode UTF-8 the way Go converts
 * bytes to runes: every byte that is not part of a well-formed sequence
 * becomes one U+FFFD. (TextDecoder and Buffer#toString replace a maximal
 * invalid subpart with a single U+FFFD, which is a different count.)
 */
function goDecode(buf) {
  if (isUtf8(buf)) return buf.toString('utf8');
  const parts = [];
  let start = 0; // start of the current run of well-formed bytes
  let i = 0;
  while (i < buf.length) {
    const size = sequenceLength(buf, i);
    if (size > 0) {
      i += size;
      continue;
    }
    if (i > start) parts.push(buf.toString('utf8', start, i));
    parts.push('\ufffd');
    i += 1;
    start = i;
  }
  if (start < buf.length) parts.push(buf.toString('utf8', start));
  return parts.join('');
}

/**
 * The first `limit` bytes followed by the marker when the true length `total`
 * (by default the buffer's own length) is over `limit`; else the bytes as they are.
 * The cut is by bytes and may leave dangling bytes of a multi-byte character.
 */
function elideBytes(buf, limit, total = buf.length) {
  if (total <= limit) return buf;
  return Buffer.concat([buf.subarray(0, limit), utf8(marker(total))]);
}

/** elision for one string: cut its UTF-8 bytes at `limit`, dangling bytes as U+FFFD. */
function elideString(text, limit) {
  const buf = utf8(text);
  if (buf.length <= limit) return text;
  return goDecode(elideBytes(buf, limit));
}

// Go's unicode.IsSpace: the Latin-1 spaces plus the Unicode White_Space
// property. Unlike String#trim it does not include U+FEFF, and unlike
// Python's str.isspace it does not include U+001C..U+001F.
const GO_SPACES = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0,
  0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
  0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

function isGoSpace(codeUnit) {
  return GO_SPACES.has(codeUnit);
}

/** Go's strings.TrimSpace. (Every Go space is in the BMP, so code units suffice.) */
function goTrim(text) {
  let start = 0;
  let end = text.length;
  while (start < end && isGoSpace(text.charCodeAt(start))) start++;
  while (end > start && isGoSpace(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), table driven.
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(buf) {
  let crc = 0xffffffff;
  for (let i = 0; i < buf.length; i++) crc = CRC_TABLE[(crc ^ buf[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * dedupe.file-hash: split on \n, strip trailing spaces, tabs and \r from each
 * line, join with \n, CRC-32 (IEEE), 8 upper-case hex digits. Works on bytes,
 * so content that is not UTF-8 hashes as it is on disk.
 */
function fileHash(buf) {
  const lines = [];
  let start = 0;
  for (let i = 0; i <= buf.length; i++) {
    if (i === buf.length || buf[i] === 0x0a) {
      let end = i;
      while (end > start && (buf[end - 1] === 0x20 || buf[end - 1] === 0x09 || buf[end - 1] === 0x0d)) end--;
      lines.push(buf.subarray(start, end));
      start = i + 1;
    }
  }
  const joined = [];
  lines.forEach((line, index) => {
    if (index > 0) joined.push(Buffer.from([0x0a]));
    joined.push(line);
  });
  return crc32(Buffer.concat(joined)).toString(16).toUpperCase().padStart(8, '0');
}

module.exports = {
  marker, utf8, sequenceLength, goDecode, elideBytes, elideString, isGoSpace, goTrim, crc32, fileHash,
};
