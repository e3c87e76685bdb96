'use strict';
// Loading caller files from the working directory, under the read tool's path
// policy: blocked paths, special files, a capped reader, relative display paths.
//
//   - The display path is the lexically normalised path relative to the working
//     directory, so a host path (the working directory's included) never
//     reaches the prompt, a note or an error message.
//   - Blocked paths are checked both lexically and after resolving links, so a
//     link cannot lead into a blocked directory (workspace.symlinks).
//   - Only regular files are read. The type is checked with stat before the
//     file is opened (a FIFO is never opened), and again on the descriptor,
//     which is opened non-blocking (no race turns it into a blocking read).
//   - At most 32768 bytes are read; the true size comes from fstat, so a
//     sparse 4 GiB (or 1 PiB) file costs one 32 KiB read.
//   - Files of the pseudo-filesystems (/proc, /sys, /dev), judged by the path
//     a link leads to, are refused unread: /proc/self/environ would send the
//     process environment, keys included (workspace.pseudo-files).
//   - With confine_to_work_dir, a path that leaves the working directory,
//     lexically or through a link, is refused (an option of this
//     implementation; the origin adds no containment).
//   - A blocked path written `~` or starting `~/` is the home directory, as
//     the origin expands its policy paths: runtime.home_dir when given (the
//     capability home_dir), else os.homedir(). Like the origin, a `~user`
//     form and a `~` after the first character are names, left as written.

const fs = require('fs');
const os = require('os');
const path = require('path');
const { AdvisorError } = require('./errors');

const READ_CAP = 32768;
const PSEUDO_FILESYSTEMS = ['/proc', '/sys', '/dev'];

function fileError(message, at) {
  return new AdvisorError('file_error', message, at);
}

function within(child, parent) {
  if (child === parent) return true;
  const prefix = parent.endsWith(path.sep) ? parent : parent + path.sep;
  return child.startsWith(prefix);
}

function realpathOrSelf(p) {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

function describeType(stat) {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a named pipe';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

class Workspace {
  /**
   * @param {string} workDir absolute working directory
   * @param {{blockedPaths?: string[], confine?: boolean, homeDir?: string}} policy
   */
  constructor(workDir, policy = {}) {
    this.workDir = path.resolve(workDir);
    this.realWorkDir = realpathOrSelf(this.workDir);
    this.confine = Boolean(policy.confine);
    const home = () => policy.homeDir || os.homedir();
    this.blocked = (policy.blockedPaths || []).filter((b) => typeof b === 'string' && b !== '').map((b) => {
      const expanded = b === '~' || b.startsWith('~/') ? path.join(home(), b.slice(1)) : b;
      const lexical = path.resolve(this.workDir, expanded);
      return { lexical, real: realpathOrSelf(lexical) };
    });
  }

  isBlocked(lexical, real) {
    return this.blocked.some((b) => within(lexical, b.lexical) || within(real, b.real) || within(real, b.lexical));
  }

  /**
   * Load one caller file.
   * @param {string} given the path as the caller wrote it
   * @param {string} at its place in the params, for the error
   * @returns {{path: string, bytes: Buffer, size: number}}
   */
  load(given, at) {
    const lexical = path.resolve(this.workDir, given);
    const display = path.relative(this.workDir, lexical) || '.';
    // Errors name the path as the caller spelt it, unless that spelling is a host path.
    const shown = path.isAbsolute(given) ? display : given;
    if (given === '') throw fileError('files: an empty path names no file', at);
    if (this.isBlocked(lexical, lexical)) throw fileError(`${shown}: the path is blocked by the read policy`, at);
    if (this.confine && !within(lexical, this.workDir)) {
      throw fileError(`${shown}: the path is outside the working directory`, at);
    }

    let stat;
    try {
      stat = fs.statSync(lexical); // follows links: the file that would be read
    } catch (error) {
      throw fileError(`${shown}: ${this.reason(error)}`, at);
    }
    const real = realpathOrSelf(lexical);
    if (this.isBlocked(lexical, real)) throw fileError(`${shown}: the path is blocked by the read policy`, at);
    if (this.confine && !within(real, this.realWorkDir)) {
      throw fileError(`${shown}: the path leads outside the working directory`, at);
    }
    if (PSEUDO_FILESYSTEMS.some((root) => within(real, root) || within(lexical, root))) {
      throw fileError(`${shown}: files of ${PSEUDO_FILESYSTEMS.join(', ')} are not sent to the advisor`, at);
    }
    if (!stat.isFile()) throw fileError(`${shown}: ${describeType(stat)} cannot be sent to the advisor`, at);

    let fd;
    try {
      fd = fs.openSync(real, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    } catch (error) {
      throw fileError(`${shown}: ${this.reason(error)}`, at);
    }
    try {
      const fstat = fs.fstatSync(fd);
      if (!fstat.isFile()) throw fileError(`${shown}: ${describeType(fstat)} cannot be sent to the advisor`, at);
      const buffer = Buffer.alloc(READ_CAP); // read to the cap or the end, whatever stat says
      let filled = 0;
      while (filled < buffer.length) {
        const n = fs.readSync(fd, buffer, filled, buffer.length - filled, filled);
        if (n === 0) break;
        filled += n;
      }
      return { path: display, bytes: buffer.subarray(0, filled), size: Math.max(fstat.size, filled) };
    } catch (error) {
      if (error instanceof AdvisorError) throw error;
      throw fileError(`${shown}: ${this.reason(error)}`, at);
    } finally {
      fs.closeSync(fd);
    }
  }

  reason(error) {
    switch (error && error.code) {
      case 'ENOENT':
      case 'ENOTDIR':
        return 'no such file';
      case 'EACCES':
      case 'EPERM':
        return 'permission denied';
      case 'ELOOP':
        return 'too many levels of symbolic links';
      case 'EISDIR':
        return 'a directory cannot be sent to the advisor';
      default:
        return `cannot be read (${error && error.code ? error.code : 'error'})`;
    }
  }
}

module.exports = { Workspace, READ_CAP };
