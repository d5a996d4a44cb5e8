"use strict";
// The app's solver in the browser (a page from scripts/build-web, or one whose yz server is
// gone): yz's library built for WebAssembly (yz.wasm, src/coach/wasm.rs) answers the
// page's API requests here, off the page's thread. Messages in: {id, path, body}; out:
// {id, status, answer} per request, and {progress: {done, total}} while a table is solved.

let solver = start();

// Loads yz.wasm (from the network, else the service worker's cache). As bytes, not
// streamed: any static server or file share will do, whatever type it gives the file.
async function start() {
  const response = await fetch("yz.wasm");
  if (!response.ok) throw new Error(`yz.wasm: ${response.status} ${response.statusText}`);
  const imports = { yz: { progress: (done, total) => postMessage({ progress: { done, total } }) } };
  const { instance } = await WebAssembly.instantiate(await response.arrayBuffer(), imports);
  return instance.exports;
}

// One request through the module: the route and the JSON body in, the status and the JSON
// answer out (see src/coach/wasm.rs).
function ask(yz, path, body) {
  const request = new TextEncoder().encode(path + "\n" + (body === undefined ? "" : JSON.stringify(body)));
  // The room first: making it may grow the memory, which detaches an older view of it.
  const at = yz.yz_request(request.length);
  new Uint8Array(yz.memory.buffer, at, request.length).set(request);
  const length = yz.yz_answer();
  const answer = new Uint8Array(yz.memory.buffer, yz.yz_answer_ptr(), length).slice();
  const status = new DataView(answer.buffer).getUint32(0, true);
  return { status, answer: JSON.parse(new TextDecoder().decode(answer.subarray(4))) };
}

onmessage = async (event) => {
  const { id, path, body } = event.data;
  let yz;
  try {
    yz = await solver;
  } catch (error) {
    solver = start();
    const message = `the solver in the browser could not be loaded (${error.message}); ` +
      "open the page again once online, or from its yz server";
    postMessage({ id, status: 503, answer: { error: message } });
    return;
  }
  try {
    postMessage({ id, ...ask(yz, path, body) });
  } catch (error) {
    // A trap (a panic: a bug in yz) leaves the module unusable: a fresh one answers next.
    solver = start();
    const message = `the solver in the browser failed (a bug in yz: please report it): ${error.message}`;
    postMessage({ id, status: 500, answer: { error: message } });
  }
};
