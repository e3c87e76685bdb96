'use strict';
// The errors the spec names. They travel as answers, never as harness failures:
// {"error": {"code": ..., "message": ..., "at": ...}}.

class AdvisorError extends Error {
  /**
   * @param {string} code invalid_input | too_many_files | file_error | missing_snapshot | provider_error
   * @param {string} message what went wrong, in words (never an absolute host path)
   * @param {string} [at] the offending field as a path into the params, e.g. transcript[3].role
   */
  constructor(code, message, at) {
    super(message);
    this.code = code;
    this.at = at;
  }

  toAnswer() {
    const error = { code: this.code, message: this.message || this.code };
    if (this.at !== undefined && this.at !== null) error.at = this.at;
    return { error };
  }
}

const invalid = (message, at) => new AdvisorError('invalid_input', message, at);

/** A type name for error messages. */
function kind(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return 'a ' + typeof value;
}

module.exports = { AdvisorError, invalid, kind };
