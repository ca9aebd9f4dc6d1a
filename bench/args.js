// The command-line options every bench script takes: `--name value`, or `--name=value`. One parser for all of them,
// so that each script reads its options the same way.
//
//   const { arg, args } = require('./args');
//   const port = Number(arg('port', 9101));    // the first --port, or 9101
//   const urls = args('url');                  // every --url, in order
'use strict';

const argv = process.argv.slice(2);

function valueAt(i, name) {
  const a = argv[i];
  if (a === '--' + name) return i + 1 < argv.length ? argv[i + 1] : undefined;
  if (a.startsWith('--' + name + '=')) return a.slice(name.length + 3);
  return undefined;
}

/** The value of the first `--name`, or `fallback` when there is none. */
function arg(name, fallback) {
  for (let i = 0; i < argv.length; i++) {
    const v = valueAt(i, name);
    if (v !== undefined) return v;
  }
  return fallback;
}

/** The values of every `--name`, in order (none: an empty list). */
function args(name) {
  const out = [];
  for (let i = 0; i < argv.length; i++) {
    const v = valueAt(i, name);
    if (v !== undefined) out.push(v);
  }
  return out;
}

module.exports = { arg, args };
