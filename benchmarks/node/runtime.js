// Shared by the Node benchmark workers: load tfjs 4.22 from tests/reference/node_modules on the
// requested backend, and serve the harness's JSON-lines protocol on stdin/stdout.
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');

const MODULES = path.join(__dirname, '..', '..', 'tests', 'reference', 'node_modules', '@tensorflow');

// Returns tfjs with `backend` ('cpu' or 'wasm') active and a line describing it.
async function loadTfjs(backend) {
  const tf = require(path.join(MODULES, 'tfjs'));
  if (backend === 'wasm') {
    const wasm = require(path.join(MODULES, 'tfjs-backend-wasm'));
    // In Node the .wasm binaries are read from disk: point the loader at the package's dist folder.
    wasm.setWasmPaths(path.join(MODULES, 'tfjs-backend-wasm', 'dist') + path.sep);
  }
  if (!(await tf.setBackend(backend))) throw new Error(`tfjs backend ${backend} failed to start`);
  await tf.ready();
  let detail = `tfjs ${tf.version.tfjs}, ${tf.getBackend()} backend, node ${process.version}`;
  if (backend === 'wasm') {
    const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
    const threads = await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT');
    detail += `, simd ${simd}, multithread ${threads}`;
  }
  return {tf, detail};
}

// Reads a float32 array written by the harness (raw little-endian) into a tensor.
function readTensor(tf, dir, entry) {
  const bytes = fs.readFileSync(path.join(dir, entry.file));
  const values = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  return tf.tensor(values, entry.shape, 'float32');
}

// The runner trains one step per `step()` call: it returns the step's cost tensor or nothing,
// directly or as a promise; `finish(last)` reads the current loss once a block is over (that read
// is what waits for the backend), disposing `last`; `tracedStep()` returns the step's cost.
// Commands: {op: 'trace', steps} -> {losses}: every step's cost, read back each step;
//           {op: 'block', steps} -> {seconds, loss}: timed, read back once at the end.
function serve(runner, info) {
  const reply = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
  const rssMb = () => process.memoryUsage().rss / 2 ** 20;
  async function handle(cmd) {
    if (cmd.op === 'trace') {
      const losses = [];
      for (let i = 0; i < cmd.steps; i++) {
        const cost = runner.tracedStep();
        losses.push(cost.dataSync()[0]);
        cost.dispose();
      }
      return {losses, rss_mb: rssMb()};
    }
    if (cmd.op === 'block') {
      const start = process.hrtime.bigint();
      let last = null;
      for (let i = 0; i < cmd.steps; i++) {
        if (last) last.dispose();
        last = runner.step();
        if (last instanceof Promise) last = await last;  // the example's `await tf.nextFrame()`
      }
      const loss = runner.finish(last);
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      return {seconds, loss, rss_mb: rssMb(), tensors: runner.tf.memory().numTensors};
    }
    return {error: `unknown op ${cmd.op}`};
  }
  reply({ready: true, ...info});
  let queue = Promise.resolve();  // one command at a time, in order
  const lines = readline.createInterface({input: process.stdin});
  lines.on('line', (line) => {
    queue = queue.then(() => handle(JSON.parse(line))).then(reply, (err) => {
      reply({error: String(err && err.stack || err)});
    });
  });
}

module.exports = {loadTfjs, readTensor, serve};
