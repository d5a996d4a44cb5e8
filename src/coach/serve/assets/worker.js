"use strict";
// The app's solver in the browser (a page from scripts/build-web, or one whose yz server is
// gone): yz's library built for WebAssembly (yz.wasm, src/coach/wasm.rs) answers the
// page's API requests here, off the page's thread. Messages in: {id, path, body}; out:
// {id, status, answer} per request, {progress: {done, total}} while a table is solved,
// and {tables: {kept, refused}} once the tables kept from earlier visits are back.
//
// Every solitaire table solved here is kept in the browser's IndexedDB (database
// "yz-tables") as the bytes of its file, and given back to the module at the next start,
// so that a warm visit answers without solving; the module checks each as a file on disk
// (a damaged one, or one of an older yz, is refused, dropped here and solved again).

let solver = start();

// Loads yz.wasm (from the network, else the service worker's cache), then gives it the
// tables kept. As bytes, not streamed: any static server or file share will do, whatever
// type it gives the file.
async function start() {
  const response = await fetch("yz.wasm");
  if (!response.ok) throw new Error(`yz.wasm: ${response.status} ${response.statusText}`);
  const imports = { yz: { progress: (done, total) => postMessage({ progress: { done, total } }) } };
  const bytes = await response.arrayBuffer();
  const yz = (await WebAssembly.instantiate(bytes, imports)).instance.exports;
  try {
    await giveKeptTables(yz);
    return yz;
  } catch (error) {
    // A trap while taking them back (a bug in yz) leaves that module unusable: the kept
    // tables are dropped and a fresh module starts without them.
    console.warn(`yz: the kept tables could not be taken back and are dropped: ${error.message}`);
    const db = await openTables();
    if (db) {
      await changeTables(db, (store) => store.clear());
      db.close();
    }
    postMessage({ tables: { kept: 0, refused: -1 } });
    return (await WebAssembly.instantiate(bytes, imports)).instance.exports;
  }
}

// The IndexedDB database of tables (one object store of table files, by a number), or
// null where the browser keeps none (a private window may refuse it): then tables are
// solved on every visit.
function openTables() {
  return new Promise((resolve) => {
    let request;
    try {
      request = indexedDB.open("yz-tables", 1);
    } catch (error) {
      resolve(null);
      return;
    }
    request.onupgradeneeded = () => request.result.createObjectStore("tables", { autoIncrement: true });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => resolve(null);
  });
}

// Every table file kept, as [key, bytes] pairs.
function keptTables(db) {
  return new Promise((resolve) => {
    const request = db.transaction("tables").objectStore("tables").openCursor();
    const found = [];
    request.onsuccess = () => {
      const cursor = request.result;
      if (!cursor) { resolve(found); return; }
      found.push([cursor.key, new Uint8Array(cursor.value)]);
      cursor.continue();
    };
    request.onerror = () => resolve(found);
  });
}

// Changes the kept tables (`change(store)`), settled once written (or not).
function changeTables(db, change) {
  return new Promise((resolve) => {
    const transaction = db.transaction("tables", "readwrite");
    change(transaction.objectStore("tables"));
    transaction.oncomplete = () => resolve(true);
    transaction.onerror = transaction.onabort = () => resolve(false);
  });
}

// Gives the module each table kept; one it refuses is dropped (see src/coach/wasm.rs).
async function giveKeptTables(yz) {
  const db = await openTables();
  let kept = 0, refused = 0;
  if (db) {
    for (const [key, bytes] of await keptTables(db)) {
      const at = yz.yz_request(bytes.length);
      new Uint8Array(yz.memory.buffer, at, bytes.length).set(bytes);
      const { status, answer } = read(yz, yz.yz_keep_table());
      if (status === 200) {
        kept++;
      } else {
        refused++;
        console.warn(`yz: a kept table was refused and will be solved again: ${answer.error}`);
        await changeTables(db, (store) => store.delete(key));
      }
    }
    db.close();
  }
  postMessage({ tables: { kept, refused } });
}

// Keeps the tables the module solved for the last request (none, mostly).
async function keepSolvedTables(yz) {
  const files = [];
  for (let length; (length = yz.yz_solved_table()) > 0;) {
    files.push(new Uint8Array(yz.memory.buffer, yz.yz_answer_ptr(), length).slice());
  }
  if (files.length === 0) return;
  const db = await openTables();
  if (!db) return;
  await changeTables(db, (store) => files.forEach((file) => store.add(file.buffer)));
  db.close();
}

// The answer at the module's answer buffer, `length` bytes: the status, then the JSON.
function read(yz, length) {
  const answer = new Uint8Array(yz.memory.buffer, yz.yz_answer_ptr(), length).slice();
  const status = new DataView(answer.buffer).getUint32(0, true);
  return { status, answer: JSON.parse(new TextDecoder().decode(answer.subarray(4))) };
}

// One request through the module: the route and the JSON body in, the status and the JSON
// answer out (see src/coach/wasm.rs).
function ask(yz, path, body) {
  const request = new TextEncoder().encode(path + "\n" + (body === undefined ? "" : JSON.stringify(body)));
  // The room first: making it may grow the memory, which detaches an older view of it.
  const at = yz.yz_request(request.length);
  new Uint8Array(yz.memory.buffer, at, request.length).set(request);
  return read(yz, yz.yz_answer());
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
  let answered;
  try {
    answered = ask(yz, path, body);
  } catch (error) {
    // A trap (a panic: a bug in yz) leaves the module unusable: a fresh one answers next.
    solver = start();
    const message = `the solver in the browser failed (a bug in yz: please report it): ${error.message}`;
    postMessage({ id, status: 500, answer: { error: message } });
    return;
  }
  postMessage({ id, ...answered });
  keepSolvedTables(yz).catch((error) => console.warn(`yz: a solved table could not be kept: ${error.message}`));
};
