// Run a Python script inside one Pyodide release under Node.js, like `python script.py args`.
//
// Why: CPython 3.14 and 3.15 (and every other version, on a machine without native builds) are
// available to us only as Pyodide, CPython compiled to WebAssembly. This wrapper gives it the
// shape of a normal interpreter so tools/pyversions.py can treat both alike: host folders are
// mounted into the Pyodide file system (NODEFS, so results written there land on the host),
// argv is passed through, stdout/stderr stream out line by line, and the script's exit status
// (SystemExit code, 1 for an uncaught exception) becomes the process's exit status.
//
// Usage:
//   node run.mjs --pyodide DIST [--mount HOST:GUEST]... [--path GUEST]... [--cwd GUEST]
//                [--env NAME=VALUE]... -- SCRIPT [ARGS...]
// DIST is the folder that holds pyodide.mjs (node_modules/pyodide of an installed release).
// Exit status 70 means Pyodide itself failed (load error or a WebAssembly trap).

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

function usage(message) {
  process.stderr.write(`run.mjs: ${message}\n`);
  process.stderr.write(
    "usage: node run.mjs --pyodide DIST [--mount HOST:GUEST]... [--path GUEST]... " +
      "[--cwd GUEST] [--env NAME=VALUE]... -- SCRIPT [ARGS...]\n",
  );
  process.exit(64);
}

function parseArgs(argv) {
  const options = { dist: null, mounts: [], paths: [], cwd: null, env: {}, script: null, args: [] };
  let i = 0;
  const value = (flag) => {
    if (i + 1 >= argv.length) usage(`${flag} needs a value`);
    i += 1;
    return argv[i];
  };
  for (; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === "--") {
      options.script = argv[i + 1] ?? null;
      options.args = argv.slice(i + 2);
      break;
    } else if (arg === "--pyodide") {
      options.dist = path.resolve(value(arg));
    } else if (arg === "--mount") {
      const spec = value(arg);
      const at = spec.lastIndexOf(":");
      if (at <= 0 || at === spec.length - 1) usage(`--mount wants HOST:GUEST, got ${spec}`);
      const host = path.resolve(spec.slice(0, at));
      if (!fs.existsSync(host) || !fs.statSync(host).isDirectory()) {
        usage(`--mount: ${host} is not a folder`);
      }
      options.mounts.push({ host, guest: spec.slice(at + 1) });
    } else if (arg === "--path") {
      options.paths.push(value(arg));
    } else if (arg === "--cwd") {
      options.cwd = value(arg);
    } else if (arg === "--env") {
      const spec = value(arg);
      const at = spec.indexOf("=");
      if (at <= 0) usage(`--env wants NAME=VALUE, got ${spec}`);
      options.env[spec.slice(0, at)] = spec.slice(at + 1);
    } else {
      usage(`unknown option ${arg}`);
    }
  }
  if (!options.dist) usage("--pyodide DIST is required");
  if (!options.script) usage("no script given after --");
  return options;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const entry = path.join(options.dist, "pyodide.mjs");
  if (!fs.existsSync(entry)) {
    process.stderr.write(`run.mjs: no pyodide.mjs in ${options.dist} (is the release installed?)\n`);
    return 70;
  }
  const { loadPyodide } = await import(pathToFileURL(entry).href);
  const pyodide = await loadPyodide({
    indexURL: options.dist + path.sep,
    stdout: (line) => process.stdout.write(line + "\n"),
    stderr: (line) => process.stderr.write(line + "\n"),
  });
  const FS = pyodide.FS;
  for (const { host, guest } of options.mounts) {
    FS.mkdirTree(guest);
    FS.mount(FS.filesystems.NODEFS, { root: host }, guest);
  }
  // Everything goes through JSON so no quoting of paths or arguments can break the program.
  const request = JSON.stringify({
    script: options.script,
    argv: [options.script, ...options.args],
    paths: options.paths,
    cwd: options.cwd,
    env: options.env,
  });
  const program = `
import json as _json, os as _os, runpy as _runpy, sys as _sys, traceback as _traceback
_request = _json.loads(${JSON.stringify(request)})
_sys.dont_write_bytecode = True  # never write .pyc files into the mounted host folders
_os.environ.update(_request["env"])
if _request["cwd"]:
    _os.chdir(_request["cwd"])
for _entry in reversed([_os.path.dirname(_request["script"])] + _request["paths"]):
    _sys.path.insert(0, _entry)
_sys.argv = _request["argv"]
_status = 0
try:
    _runpy.run_path(_request["script"], run_name="__main__")
except SystemExit as _exit:
    if _exit.code is None:
        _status = 0
    elif isinstance(_exit.code, int):
        _status = _exit.code
    else:
        print(_exit.code, file=_sys.stderr)
        _status = 1
except BaseException:
    _traceback.print_exc()
    _status = 1
_sys.stdout.flush()
_sys.stderr.flush()
_status
`;
  const status = pyodide.runPython(program);
  return typeof status === "number" ? status : 1;
}

main().then(
  (status) => {
    process.exitCode = status;
  },
  (error) => {
    process.stderr.write(`run.mjs: Pyodide failed: ${error && error.stack ? error.stack : error}\n`);
    process.exitCode = 70;
  },
);
