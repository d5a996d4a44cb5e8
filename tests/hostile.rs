//! Hand-built files that are well formed but lie (once the `forged` rows of `scripts/hostile`).
//!
//! Manifests that name files outside their directory, links, FIFOs, shard lists and mover
//! ranges that do not add up, another game's identity, layers missing or listed twice;
//! store headers whose own fields lie behind a valid header hash; and values out of range
//! behind valid checksums, in two-player shards, solitaire and target tables and strategy
//! files. Each case starts from freshly copied solved tables, forges one file with the
//! library's own writers ([`super::forge`]), runs the real binary under a timeout and
//! prints one `HOSTILE {json}` line (`--nocapture` shows them). It fails while any reader
//! accepts a lie, panics, hangs or loses a file.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::os::unix::fs::symlink;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use yz::duel::shard::{LayerEntry, MANIFEST_KIND, SHARD_KIND, SHARD_RECORD_BYTES};

use super::forge::{Forge, RawStore, reseal};

/// The four-box game's positions by layer (mover's filled boxes + opponent's), none of
/// them decided: `duel value` at layer L reads layer L, `duel advise` at L - 1 reads L.
const POSITIONS: [(&str, &str); 8] = [
    ("", ""),
    ("", "ones=3"),
    ("ones=2", "ones=3"),
    ("ones=2", "ones=3,twos=4"),
    ("ones=2,twos=6", "ones=3,twos=4"),
    ("ones=2,twos=6", "ones=3,twos=4,threes=9"),
    ("ones=2,twos=6,threes=6", "ones=3,twos=4,threes=9"),
    ("ones=2,twos=6,threes=6", "ones=3,twos=4,threes=9,fours=8"),
];

/// What a reader must do with a forged file.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Expect {
    /// Refuse it: status 2 and a message.
    Refuse,
    /// Refuse it, or answer exactly as from the sound files (the lie is in something
    /// this reader does not use).
    Same,
}
use Expect::{Refuse, Same};

/// One command a case runs, and what it must do.
type Reader = (Vec<String>, Expect);

/// A lie told by a manifest.
type Edit = Box<dyn Fn(&mut yz::duel::shard::Manifest)>;

/// A lie told by a shard's metadata.
type MetadataEdit = Box<dyn Fn(&mut Value)>;

/// What one run of the binary did.
struct Outcome {
    code: Option<i32>,
    signal: Option<i32>,
    timed_out: bool,
    stdout: String,
    stderr: String,
    seconds: f64,
}

/// The work directory: pristine solved files, the copies each case forges, the results.
struct Bench {
    root: PathBuf,
    /// Two-player tables of the first four boxes (what most cases forge).
    t: PathBuf,
    /// A data directory: solitaire and target tables of the first six boxes, strategy
    /// files of the first three.
    d: PathBuf,
    forge: Forge,
    timeout: Duration,
    baselines: HashMap<Vec<String>, String>,
    files: usize,
    failures: Vec<String>,
}

fn s(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// The output less its timings, for comparing runs.
fn without_timings(stdout: &str) -> String {
    fn strip(v: Value) -> Value {
        match v {
            Value::Object(map) => Value::Object(
                map.into_iter().filter(|(k, _)| !k.contains("seconds")).map(|(k, v)| (k, strip(v))).collect(),
            ),
            Value::Array(items) => Value::Array(items.into_iter().map(strip).collect()),
            v => v,
        }
    }
    match serde_json::from_str::<Value>(stdout) {
        Ok(v) => strip(v).to_string(),
        Err(_) => stdout.to_owned(),
    }
}

/// Copies the files of `from` into `to` (created if missing).
pub(super) fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// Every path under `dirs` with its type and contents, to tell what a command removed or
/// changed.
fn snapshot(dirs: &[&Path]) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut seen = BTreeMap::new();
    for dir in dirs {
        let Ok(entries) = fs::read_dir(dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = fs::symlink_metadata(&path) else { continue };
            let content = if meta.file_type().is_symlink() {
                format!("link {}", fs::read_link(&path).unwrap().display()).into_bytes()
            } else if meta.is_file() {
                fs::read(&path).unwrap_or_default()
            } else {
                format!("{:?}", meta.file_type()).into_bytes()
            };
            seen.insert(path, content);
        }
    }
    seen
}

impl Bench {
    fn new(root: &Path) -> Bench {
        let pristine = root.join("pristine");
        let (pt, pd) = (pristine.join("t"), pristine.join("d"));
        fs::create_dir_all(&pd).unwrap();
        let ok = |args: &[&str]| {
            let out = Command::new(env!("CARGO_BIN_EXE_yz")).args(args).output().unwrap();
            assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        };
        let (pt_s, pd_s) = (pt.to_str().unwrap(), pd.to_str().unwrap());
        ok(&["duel", "solve", "--first", "4", "--out", pt_s]);
        ok(&["duel", "solve", "--first", "3", "--out", root.join("t3").to_str().unwrap()]);
        ok(&["--data", pd_s, "solo", "solve", "--first", "6"]);
        ok(&["--data", pd_s, "targets", "solve", "--first", "6"]);
        let evolved = pd.join("evolved-official-0007.yzs");
        let learned = pd.join("learned-official-0007.yzs");
        ok(&[
            "--data",
            pd_s,
            "strategy",
            "evolve",
            "--first",
            "3",
            "--generations",
            "1",
            "--population",
            "20",
            "--sample",
            "10",
            "--finalists",
            "1",
            "--polish",
            "0",
            "--out",
            evolved.to_str().unwrap(),
        ]);
        ok(&[
            "--data",
            pd_s,
            "strategy",
            "train",
            "--first",
            "3",
            "--games",
            "2000",
            "--out",
            learned.to_str().unwrap(),
        ]);
        fs::create_dir_all(root.join("elsewhere")).unwrap();
        fs::copy(pt.join("layer-04-shard-00000.yzs"), root.join("elsewhere/layer-04-shard-00000.yzs")).unwrap();
        let work = root.join("work");
        let (t, d) = (work.join("t"), work.join("d"));
        copy_dir(&pt, &t);
        let forge = Forge::open(&t, 4);
        let timeout = std::env::var("YZ_HOSTILE_TIMEOUT").ok().and_then(|v| v.parse().ok()).unwrap_or(10.0);
        let bench = Bench {
            root: root.to_owned(),
            t,
            d,
            forge,
            timeout: Duration::from_secs_f64(timeout),
            baselines: HashMap::new(),
            files: 0,
            failures: Vec::new(),
        };
        bench.reset();
        bench
    }

    /// Fresh copies of the pristine files.
    fn reset(&self) {
        for (dir, name) in [(&self.t, "t"), (&self.d, "d")] {
            if dir.exists() {
                fs::remove_dir_all(dir).unwrap();
            }
            copy_dir(&self.root.join("pristine").join(name), dir);
        }
    }

    fn t(&self) -> &str {
        self.t.to_str().unwrap()
    }

    fn d(&self) -> &str {
        self.d.to_str().unwrap()
    }

    fn shard(&self, layer: usize) -> PathBuf {
        self.t.join(format!("layer-{layer:02}-shard-00000.yzs"))
    }

    fn run(&self, argv: &[String]) -> Outcome {
        let out_path = self.root.join("stdout");
        let err_path = self.root.join("stderr");
        let started = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_yz"))
            .args(argv)
            .current_dir(&self.root)
            .env_remove("RUST_LOG")
            .env("RUST_BACKTRACE", "0")
            .stdin(Stdio::null())
            .stdout(fs::File::create(&out_path).unwrap())
            .stderr(fs::File::create(&err_path).unwrap())
            .spawn()
            .expect("yz runs");
        let mut timed_out = false;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > self.timeout {
                timed_out = true;
                let _ = child.kill();
                break child.wait().unwrap();
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        let read = |p: &Path| String::from_utf8_lossy(&fs::read(p).unwrap_or_default()).into_owned();
        Outcome {
            code: status.code(),
            signal: if timed_out { None } else { status.signal() },
            timed_out,
            stdout: read(&out_path),
            stderr: read(&err_path),
            seconds: started.elapsed().as_secs_f64(),
        }
    }

    /// The output of `argv` on the pristine files.
    fn baseline(&mut self, argv: &[String]) -> String {
        if let Some(b) = self.baselines.get(argv) {
            return b.clone();
        }
        self.reset();
        let out = self.run(argv);
        assert_eq!(out.code, Some(0), "the pristine files fail {argv:?}: {}", out.stderr);
        self.baselines.insert(argv.to_vec(), out.stdout.clone());
        out.stdout
    }

    /// Forges one file with `forge` on fresh copies, runs every reader and prints one line
    /// per reader.
    fn case(&mut self, label: &str, forge: impl FnOnce(&Bench), readers: Vec<Reader>) {
        let baselines: Vec<Option<String>> =
            readers.iter().map(|(argv, expect)| (*expect == Same).then(|| self.baseline(argv))).collect();
        self.reset();
        forge(self);
        self.files += 1;
        for ((argv, expect), baseline) in readers.into_iter().zip(baselines) {
            let before = snapshot(&[&self.t, &self.d]);
            let out = self.run(&argv);
            let after = snapshot(&[&self.t, &self.d]);
            let lost: Vec<String> = if out.code == Some(0) {
                Vec::new()
            } else {
                before.iter().filter(|(p, v)| after.get(*p) != Some(v)).map(|(p, _)| p.display().to_string()).collect()
            };
            let panicked = out.stderr.contains("panicked") || out.stderr.contains("RUST_BACKTRACE");
            let good = !out.timed_out
                && !panicked
                && lost.is_empty()
                && match out.code {
                    Some(2) => super::hostile_cli::unclean_message(&out.stderr).is_none(),
                    Some(0) => baseline.as_deref().is_some_and(|b| without_timings(b) == without_timings(&out.stdout)),
                    _ => false,
                };
            let status = match (out.timed_out, out.code, out.signal) {
                (true, ..) => "timeout".to_owned(),
                (_, Some(code), _) => format!("exit {code}"),
                (_, None, signal) => format!("signal {signal:?}"),
            };
            if !good {
                let last = out.stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").to_owned();
                self.failures.push(format!("{label}: {argv:?}: {status}: {last}"));
            }
            let line = json!({
                "label": label,
                "argv": argv,
                "dir": self.root,
                "expect": match expect { Refuse => "refuse", Same => "same" },
                "baseline": baseline,
                "code": out.code,
                "signal": out.signal,
                "timed_out": out.timed_out,
                "stdout": out.stdout.chars().take(20_000).collect::<String>(),
                "stderr": out.stderr.chars().take(20_000).collect::<String>(),
                "seconds": out.seconds,
                "lost": lost,
            });
            println!("HOSTILE {line}");
        }
    }

    // Readers.

    fn verify(&self, expect: Expect) -> Reader {
        (s(&["shard", "verify", self.t()]), expect)
    }

    fn value(&self, layer: usize, expect: Expect) -> Reader {
        let (me, opp) = POSITIONS[layer];
        (s(&["--json", "duel", "value", "--first", "4", "--me", me, "--opp", opp, "--tables", self.t()]), expect)
    }

    /// `duel advise` one layer before `layer`: it reads `layer`.
    fn advise(&self, layer: usize, expect: Expect) -> Reader {
        let (me, opp) = POSITIONS[layer - 1];
        let argv = [
            "--json",
            "duel",
            "advise",
            "--first",
            "4",
            "--me",
            me,
            "--opp",
            opp,
            "--tables",
            self.t(),
            "--dice",
            "1,2,2,3,4",
            "--rolls-left",
            "1",
        ];
        (s(&argv), expect)
    }

    fn resume(&self, expect: Expect) -> Reader {
        (s(&["--json", "duel", "solve", "--first", "4", "--out", self.t(), "--resume"]), expect)
    }

    /// Every two-player reader of layer `layer`, each of which must refuse.
    fn duel_readers(&self, layer: usize) -> Vec<Reader> {
        let mut readers = vec![self.verify(Refuse), self.value(layer, Refuse)];
        if layer > 0 {
            readers.push(self.advise(layer, Refuse));
        }
        readers
    }

    /// Verify must name the lie; readers of the layer may answer from the sound data.
    fn lie_elsewhere(&self) -> Vec<Reader> {
        vec![self.verify(Refuse), self.value(4, Same), self.advise(4, Same)]
    }

    fn solo_readers(&self, expect: Expect) -> Vec<Reader> {
        let d = self.d();
        vec![
            (s(&["--data", d, "--json", "solo", "value", "--first", "6", "--card", ""]), expect),
            (s(&["--data", d, "--json", "solo", "value", "--first", "6", "--card", "ones=2,sixes=18"]), expect),
            (
                s(&[
                    "--data",
                    d,
                    "--json",
                    "solo",
                    "advise",
                    "--first",
                    "6",
                    "--card",
                    "",
                    "--dice",
                    "6,6,5,2,1",
                    "--rolls-left",
                    "1",
                ]),
                expect,
            ),
            (s(&["--data", d, "--json", "strategy", "eval", "optimal", "--first", "6"]), expect),
        ]
    }

    fn target_readers(&self, expect: Expect) -> Vec<Reader> {
        let d = self.d();
        vec![
            (s(&["--data", d, "--json", "targets", "query", "--first", "6", "--card", "", "--target", "100"]), expect),
            (
                s(&[
                    "--data",
                    d,
                    "--json",
                    "targets",
                    "advise",
                    "--first",
                    "6",
                    "--card",
                    "ones=3",
                    "--dice",
                    "6,6,5,2,1",
                    "--rolls-left",
                    "1",
                    "--target",
                    "60",
                ]),
                expect,
            ),
        ]
    }

    fn strategy_readers(&self, name: &str) -> Vec<Reader> {
        let d = self.d();
        vec![
            (s(&["--data", d, "--json", "strategy", "eval", name, "--first", "3"]), Refuse),
            (s(&["--data", d, "--json", "simulate", "--strategy", name, "--first", "3", "--games", "100"]), Refuse),
        ]
    }
}

/// The shard of `layer` rewritten as `raw`, listed in the manifest with its new checksum.
fn relist_raw(b: &Bench, layer: usize, raw: &RawStore) {
    let path = b.shard(layer);
    raw.write(&path);
    let checksum = unsafe { yz::store::verify(&path) }.map(|r| r.checksum).unwrap_or(yz::store::Checksum(0));
    let bytes = fs::metadata(&path).unwrap().len();
    b.forge.with_entry(layer, |e| {
        e.checksum = checksum;
        e.bytes = bytes;
    });
}

/// The shard of `layer` resealed with its metadata and payload changed by `edit`, listed
/// in the manifest with its new checksum.
fn relist_resealed(b: &Bench, layer: usize, kind: &str, edit: impl FnOnce(&mut Value, &mut Vec<u8>)) {
    let path = b.shard(layer);
    reseal(&path, SHARD_KIND.name, kind, edit);
    let checksum = unsafe { yz::store::verify(&path) }.unwrap().checksum;
    let bytes = fs::metadata(&path).unwrap().len();
    b.forge.with_entry(layer, |e| {
        e.checksum = checksum;
        e.bytes = bytes;
    });
}

fn f32_payload(values: &[f32]) -> Vec<u8> {
    zstd::bulk::compress(&values.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(), 3).unwrap()
}

/// The target table's payload with every stored value replaced by `value`, each block
/// stored as plain byte planes (see `src/targets/table.rs`).
fn every_target_value(payload: &[u8], states: usize, blocks: usize, value: f32) -> Vec<u8> {
    let at8 = |n: usize| n.next_multiple_of(8);
    let first_len = at8(4 * states);
    let vs_start = first_len;
    let bs_start = vs_start + at8(8 * (states + 1));
    let bst_start = bs_start + at8(4 * (blocks + 1));
    let area_start = bst_start + at8(8 * (blocks + 1));
    let u64_at = |at: usize| u64::from_ne_bytes(payload[at..at + 8].try_into().unwrap());
    let u32_at = |at: usize| u32::from_ne_bytes(payload[at..at + 4].try_into().unwrap());
    let value_start: Vec<u64> = (0..=states).map(|i| u64_at(vs_start + 8 * i)).collect();
    let block_state: Vec<u32> = (0..=blocks).map(|i| u32_at(bs_start + 4 * i)).collect();
    let mut area = Vec::new();
    let mut block_start = vec![0u64];
    for w in block_state.windows(2) {
        let (from, to) = (w[0] as usize, w[1] as usize);
        let m = (value_start[to] - value_start[from]) as usize;
        let mut planes = vec![0u8; 4 * m];
        let mut k = 0;
        for state in from..to {
            let len = (value_start[state + 1] - value_start[state]) as usize;
            for i in 0..len {
                let word = if i == 0 { 1.0f32.to_bits().wrapping_sub(value.to_bits()) } else { 0 };
                let [b0, b1, b2, b3] = word.to_be_bytes();
                (planes[k], planes[m + k], planes[2 * m + k], planes[3 * m + k]) = (b0, b1, b2, b3);
                k += 1;
            }
        }
        area.extend_from_slice(&planes);
        block_start.push(area.len() as u64);
    }
    area.resize(at8(area.len()), 0);
    let mut out = payload[..bst_start].to_vec();
    for start in &block_start {
        out.extend_from_slice(&start.to_ne_bytes());
    }
    out.resize(area_start, 0);
    out.extend_from_slice(&area);
    out
}

fn manifest_path(b: &Bench) -> PathBuf {
    b.t.join("manifest.yzs")
}

#[test]
fn hostile_files() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = Bench::new(dir.path());
    let root = b.root.clone();
    let all = |b: &Bench| b.duel_readers(4);

    // The manifest's shard records (its payload: 48 bytes a shard, layers 7, 6, 5, 4...
    // in turn, so layer 4's shard is the fourth record) and the metadata that counts
    // them, resealed with valid checksums. The manifest stores no file names: a shard's
    // name follows from its layer and index, so no record can name a file elsewhere.
    type RecordEdit = Box<dyn Fn(&mut Value, &mut Vec<u8>)>;
    const R: usize = SHARD_RECORD_BYTES;
    let field = |record: usize, field: usize| R * record + 8 * field..R * record + 8 * field + 8;
    let records: Vec<(&str, RecordEdit)> = vec![
        ("a record short", Box::new(|_, p| p.truncate(p.len() - R))),
        ("a byte short of whole records", Box::new(|_, p| p.truncate(p.len() - 1))),
        ("a record more", Box::new(|_, p| p.extend_from_slice(&[7; R]))),
        ("2^64 - 1 shards in the last layer", Box::new(|m, _| m["layers"][0]["shards"] = json!(u64::MAX))),
        ("layer 4's shard ending at mover 2^64 - 1", Box::new(move |_, p| p[field(3, 1)].copy_from_slice(&[0xff; 8]))),
        (
            "layer 4's shard starting at mover 2^63",
            Box::new(move |_, p| p[field(3, 0)].copy_from_slice(&(1u64 << 63).to_le_bytes())),
        ),
        (
            "the records of layers 5 and 4 swapped",
            Box::new(|_, p| {
                let five: Vec<u8> = p[2 * R..3 * R].to_vec();
                p.copy_within(3 * R..4 * R, 2 * R);
                p[3 * R..4 * R].copy_from_slice(&five);
            }),
        ),
        ("no shard size", Box::new(|m, _| drop(m.as_object_mut().unwrap().remove("shard_positions")))),
        ("a shard size of 0", Box::new(|m, _| m["shard_positions"] = json!(0))),
        ("a shard size of 1, which cuts the layers otherwise", Box::new(|m, _| m["shard_positions"] = json!(1))),
    ];
    for (label, edit) in records {
        let readers = all(&b);
        b.case(
            &format!("manifest record: {label}"),
            |b| reseal(&manifest_path(b), MANIFEST_KIND.name, MANIFEST_KIND.name, edit),
            readers,
        );
    }

    // What stands at the shard's name.
    let elsewhere = root.join("elsewhere/layer-04-shard-00000.yzs");
    let t3_shard = root.join("t3/layer-04-shard-00000.yzs");
    for (label, target) in [
        ("a symbolic link to a sound copy elsewhere", elsewhere.clone()),
        ("a symbolic link to /dev/zero", PathBuf::from("/dev/zero")),
        ("a symbolic link to another game's shard", t3_shard.clone()),
        ("a symbolic link to itself", b.shard(4)),
    ] {
        let readers = all(&b);
        b.case(
            &format!("shard is {label}"),
            |b| {
                fs::remove_file(b.shard(4)).unwrap();
                symlink(&target, b.shard(4)).unwrap();
            },
            readers,
        );
    }
    let readers = all(&b);
    b.case(
        "shard is a FIFO",
        |b| {
            fs::remove_file(b.shard(4)).unwrap();
            assert!(Command::new("mkfifo").arg(b.shard(4)).status().unwrap().success());
        },
        readers,
    );
    let readers = all(&b);
    b.case(
        "shard is a directory",
        |b| {
            fs::remove_file(b.shard(4)).unwrap();
            fs::create_dir(b.shard(4)).unwrap();
        },
        readers,
    );
    // Draws that their values rule out, with valid checksums, and a truncated draw shard:
    // verify names them and a resume that carries draws stops (never drops them).
    let draw_readers = |b: &Bench| vec![b.verify(Refuse), b.resume(Refuse)];
    let readers = draw_readers(&b);
    b.case("draws all 1.0, checksums valid", |b| b.forge.lie_draws(0, 1.0), readers);
    let readers = draw_readers(&b);
    b.case(
        "draw shard truncated",
        |b| {
            let path = b.t.join("layer-00-draw-00000.yzs");
            let bytes = fs::read(&path).unwrap();
            fs::write(&path, &bytes[..bytes.len() - 7]).unwrap();
        },
        readers,
    );
    let readers = all(&b);
    b.case(
        "manifest is a shard",
        |b| {
            fs::copy(b.shard(4), manifest_path(b)).unwrap();
        },
        readers,
    );
    let readers = all(&b);
    b.case(
        "manifest is a solitaire table",
        |b| {
            fs::copy(b.d.join("solo-official-003f.yzt"), manifest_path(b)).unwrap();
        },
        readers,
    );
    let readers = all(&b);
    b.case(
        "manifest is a symbolic link to another game's manifest",
        |b| {
            fs::remove_file(manifest_path(b)).unwrap();
            symlink(b.root.join("t3/manifest.yzs"), manifest_path(b)).unwrap();
        },
        readers,
    );

    // Shard lists and mover ranges.
    let pristine = b.forge.pristine.clone();
    let entry4 = b.forge.entry(4).clone();
    let movers4 = b.forge.shape(4).movers.len();
    let edits: Vec<(&str, Edit, bool)> = vec![
        ("an empty shard list for layer 4", Box::new(|m| l4(m).shards.clear()), true),
        (
            "an empty shard list and no positions for layer 4",
            Box::new(|m| {
                l4(m).shards.clear();
                l4(m).positions = 0;
            }),
            true,
        ),
        ("shard range 0..1", Box::new(|m| l4(m).shards[0].mover_end = 1), true),
        ("mover_end 10^18", Box::new(|m| l4(m).shards[0].mover_end = 1_000_000_000_000_000_000), true),
        ("mover range 0..0", Box::new(|m| l4(m).shards[0].mover_end = 0), true),
        (
            "mover range 5..2",
            Box::new(|m| {
                l4(m).shards[0].mover_start = 5;
                l4(m).shards[0].mover_end = 2;
            }),
            true,
        ),
        ("an entry of 0 positions", Box::new(|m| l4(m).shards[0].positions = 0), false),
        (
            "u64::MAX positions",
            Box::new(|m| {
                l4(m).shards[0].positions = u64::MAX;
                l4(m).positions = u64::MAX;
            }),
            false,
        ),
        ("checksum 0000000000000000", Box::new(|m| l4(m).shards[0].checksum = yz::store::Checksum(0)), true),
        (
            "the checksum of layer 5's shard",
            Box::new(move |m| {
                let five = pristine.layers.iter().find(|l| l.layer == 5).unwrap().shards[0].checksum;
                l4(m).shards[0].checksum = five;
            }),
            true,
        ),
        (
            "layer 4 split in two entries naming the same file",
            Box::new(move |m| {
                let half = movers4 / 2;
                let mut second = entry4.clone();
                second.mover_start = half;
                l4(m).shards[0].mover_end = half;
                l4(m).shards.push(second);
            }),
            true,
        ),
        (
            "the shard lists of layers 4 and 5 swapped",
            Box::new(|m| {
                let five = m.layers.iter().find(|l| l.layer == 5).unwrap().shards.clone();
                let four = std::mem::replace(&mut l4(m).shards, five);
                m.layers.iter_mut().find(|l| l.layer == 5).unwrap().shards = four;
            }),
            true,
        ),
        ("another game's boxes (first five)", Box::new(|m| m.identity.categories.push("fives".into())), true),
        ("another game's rules", Box::new(|m| m.identity.rules = "no-joker".into()), true),
        ("rules that do not exist", Box::new(|m| m.identity.rules = "bogus".into()), true),
        ("table version 1", Box::new(|m| m.identity.table_version = 1), true),
        ("table version 2 (shards in the metadata)", Box::new(|m| m.identity.table_version = 2), true),
        ("table version 4", Box::new(|m| m.identity.table_version = 4), true),
        ("boxes out of card order", Box::new(|m| m.identity.categories.reverse()), true),
        ("layer 4 missing, complete", Box::new(|m| m.layers.retain(|l| l.layer != 4)), true),
        ("a wrong position count for layer 4", Box::new(|m| l4(m).positions += 1), false),
        ("a wrong file size", Box::new(|m| l4(m).shards[0].bytes = 0), false),
        ("first layer 5 while layers 0..8 are listed", Box::new(|m| m.first_layer = 5), false),
        ("end layer 100", Box::new(|m| m.end_layer = 100), false),
        ("end layer 0", Box::new(|m| m.end_layer = 0), false),
        ("end layer usize::MAX", Box::new(|m| m.end_layer = usize::MAX), false),
        ("not complete with every layer", Box::new(|m| m.complete = false), false),
        (
            "layer 4 listed twice",
            Box::new(|m| {
                let four = l4(m).clone();
                m.layers.push(four);
            }),
            false,
        ),
        (
            "layer 99 listed",
            Box::new(|m| {
                let mut extra = m.layers[0].clone();
                extra.layer = 99;
                m.layers.insert(0, extra);
            }),
            false,
        ),
        ("layers listed first to last", Box::new(|m| m.layers.reverse()), false),
        (
            "20,000 copies of layer 7",
            Box::new(|m| {
                let seven = m.layers[0].clone();
                m.layers.splice(0..0, std::iter::repeat_n(seven, 20_000));
            }),
            false,
        ),
    ];
    for (label, edit, read_lie) in edits {
        let readers = if read_lie { all(&b) } else { b.lie_elsewhere() };
        b.case(&format!("manifest lists {label}"), |b| b.forge.with_manifest(|m| edit(m)), readers);
    }
    let readers = vec![b.verify(Refuse), b.resume(Refuse)];
    b.case(
        "manifest lists layer 4 missing (resume)",
        |b| b.forge.with_manifest(|m| m.layers.retain(|l| l.layer != 4)),
        readers,
    );
    let readers = vec![b.verify(Refuse), b.resume(Refuse)];
    b.case(
        "manifest of another game (resume)",
        |b| b.forge.with_manifest(|m| m.identity.categories.push("fives".into())),
        readers,
    );

    // The manifest's store header lies, behind a valid header hash.
    b.reset();
    let manifest_raw = RawStore::of(&manifest_path(&b), MANIFEST_KIND.name);
    let manifest_chunks = (manifest_raw.payload.len() as u64).div_ceil(u64::from(yz::store::CHUNK_SIZE));
    let nested = "[".repeat(100_000) + &"]".repeat(100_000);
    let raws: Vec<(&str, RawStore, Expect)> = vec![
        ("format version 2", RawStore { version: 2, ..manifest_raw.clone() }, Refuse),
        ("format version 0", RawStore { version: 0, ..manifest_raw.clone() }, Refuse),
        ("the other byte order", RawStore { byte_order_mark: 0x0403_0201, ..manifest_raw.clone() }, Refuse),
        ("a byte-order mark of 0", RawStore { byte_order_mark: 0, ..manifest_raw.clone() }, Refuse),
        ("chunk size 0", RawStore { chunk_size: 0, ..manifest_raw.clone() }, Refuse),
        ("chunk size 1 (a legal file)", RawStore { chunk_size: 1, ..manifest_raw.clone() }, Same),
        ("a payload length of 2^63", RawStore { payload_len: Some(1 << 63), ..manifest_raw.clone() }, Refuse),
        (
            "one chunk more than its length needs",
            RawStore { chunks: Some(manifest_chunks + 1), ..manifest_raw.clone() },
            Refuse,
        ),
        ("chunk count u64::MAX", RawStore { chunks: Some(u64::MAX), ..manifest_raw.clone() }, Refuse),
        ("metadata null", RawStore { metadata: b"null".to_vec(), ..manifest_raw.clone() }, Refuse),
        ("metadata []", RawStore { metadata: b"[]".to_vec(), ..manifest_raw.clone() }, Refuse),
        ("metadata nested 100,000 deep", RawStore { metadata: nested.into_bytes(), ..manifest_raw.clone() }, Refuse),
        ("metadata not UTF-8", RawStore { metadata: vec![0xff, 0xfe, b'{', b'}'], ..manifest_raw.clone() }, Refuse),
        ("a kind of 255 bytes", RawStore { kind: vec![b'x'; 255], ..manifest_raw.clone() }, Refuse),
        ("a kind that is not UTF-8", RawStore { kind: vec![0xc3, 0x28], ..manifest_raw.clone() }, Refuse),
        ("another magic", RawStore { magic: *b"YZSTORE\x01", ..manifest_raw.clone() }, Refuse),
    ];
    for (label, raw, expect) in raws {
        let readers = match expect {
            Refuse => all(&b),
            Same => vec![b.verify(Same), b.value(4, Same), b.advise(4, Same)],
        };
        b.case(&format!("manifest header: {label}"), |b| raw.write(&manifest_path(b)), readers);
    }

    // The shard's payload and header lie behind valid checksums (the manifest lists the
    // new checksum).
    let positions = b.forge.entry(4).positions as usize;
    b.reset();
    let shard_raw = RawStore::of(&b.shard(4), SHARD_KIND.name);
    let mut noise = vec![0u8; 4096];
    noise.iter_mut().enumerate().for_each(|(i, x)| *x = (i * 131 % 251) as u8);
    let payloads: Vec<(&str, Vec<u8>)> = vec![
        ("not zstd", noise),
        ("one value too many", f32_payload(&vec![0.5; positions + 1])),
        ("one value too few", f32_payload(&vec![0.5; positions - 1])),
        ("256 MiB of zeros (a zstd bomb)", zstd::bulk::compress(&vec![0u8; 256 << 20], 19).unwrap()),
        ("empty", Vec::new()),
    ];
    for (label, payload) in payloads {
        let raw = RawStore { payload, ..shard_raw.clone() };
        let readers = all(&b);
        b.case(&format!("shard payload {label}"), |b| relist_raw(b, 4, &raw), readers);
    }
    let headers: Vec<(&str, MetadataEdit)> = vec![
        ("table version 1", Box::new(|m| m["table_version"] = json!(1))),
        ("table version 3", Box::new(|m| m["table_version"] = json!(3))),
        ("another game", Box::new(|m| m["categories"] = json!(["ones", "twos", "threes", "fours", "fives"]))),
        ("layer 5", Box::new(|m| m["layer"] = json!(5))),
        ("one opponent more", Box::new(|m| m["opponents"] = json!(m["opponents"].as_u64().unwrap() + 1))),
        ("movers 0..1", Box::new(|m| m["mover_end"] = json!(1))),
        ("no metadata fields", Box::new(|m| *m = json!({}))),
        ("positions as a string", Box::new(|m| m["positions"] = json!("many"))),
    ];
    for (label, edit) in headers {
        let readers = all(&b);
        b.case(&format!("shard header: {label}"), |b| relist_resealed(b, 4, SHARD_KIND.name, |m, _| edit(m)), readers);
    }
    let readers = all(&b);
    b.case("shard of kind duel-manifest", |b| relist_resealed(b, 4, MANIFEST_KIND.name, |_, _| {}), readers);
    let readers = all(&b);
    b.case(
        "another game's shard of layer 4, listed with its checksum",
        |b| {
            fs::copy(b.root.join("t3/layer-04-shard-00000.yzs"), b.shard(4)).unwrap();
            let other = Forge::open(&b.root.join("t3"), 3);
            let theirs = other.entry(4).clone();
            b.forge.with_entry(4, |e| *e = theirs);
        },
        readers,
    );

    // Values that are not winning chances, behind valid checksums.
    for (label, lie) in [
        ("7.5", 7.5f32),
        ("NaN", f32::NAN),
        ("-3", -3.0),
        ("+inf", f32::INFINITY),
        ("-inf", f32::NEG_INFINITY),
        ("1.0002", 1.0002),
        ("-0.001", -0.001),
    ] {
        let readers = all(&b);
        b.case(&format!("layer 4's values all {label}"), |b| b.forge.lie_values(4, lie), readers);
    }
    let readers = vec![b.verify(Refuse), b.value(7, Refuse)];
    b.case("layer 7's values all NaN", |b| b.forge.lie_values(7, f32::NAN), readers);
    let readers = vec![b.verify(Refuse), b.value(0, Refuse), b.resume(Refuse)];
    b.case("layer 0's value 7.5 (what resume reports)", |b| b.forge.lie_values(0, 7.5), readers);

    // Solitaire tables whose values cannot be expected scores, behind valid checksums.
    let solo = |b: &Bench| b.d.join("solo-official-003f.yzt");
    let f64s = |payload: &mut Vec<u8>, v: f64| {
        let n = payload.len() / 8;
        *payload = std::iter::repeat_n(v.to_ne_bytes(), n).flatten().collect();
    };
    for (label, lie) in [("NaN", f64::NAN), ("-3", -3.0), ("1e30", 1e30), ("+inf", f64::INFINITY)] {
        let readers = b.solo_readers(Refuse);
        b.case(
            &format!("solitaire table values all {label}"),
            |b| reseal(&solo(b), "solo-table", "solo-table", |_, p| f64s(p, lie)),
            readers,
        );
    }
    let readers = b.solo_readers(Refuse);
    b.case(
        "solitaire table with one state more",
        |b| {
            reseal(&solo(b), "solo-table", "solo-table", |m, p| {
                m["states"] = json!(m["states"].as_u64().unwrap() + 1);
                p.extend_from_slice(&0f64.to_ne_bytes());
            })
        },
        readers,
    );
    let readers = b.solo_readers(Refuse);
    b.case(
        "solitaire table of 4 bytes more",
        |b| reseal(&solo(b), "solo-table", "solo-table", |_, p| p.extend_from_slice(&[0; 4])),
        readers,
    );
    let readers = b.solo_readers(Refuse);
    b.case(
        "solitaire table of kind target-table",
        |b| reseal(&solo(b), "solo-table", "target-table", |_, _| {}),
        readers,
    );
    let readers = b.solo_readers(Refuse);
    b.case(
        "solitaire table without metadata",
        |b| reseal(&solo(b), "solo-table", "solo-table", |m, _| *m = json!({})),
        readers,
    );

    // Target tables whose probabilities are not probabilities, re-encoded with valid
    // checksums and a consistent index.
    let targets = |b: &Bench| b.d.join("targets-official-003f.yzt");
    for (label, lie) in [("7.5", 7.5f32), ("NaN", f32::NAN), ("-3", -3.0)] {
        let readers = b.target_readers(Refuse);
        b.case(
            &format!("target table probabilities all {label}"),
            |b| {
                reseal(&targets(b), "target-table", "target-table", |m, p| {
                    let states = m["states"].as_u64().unwrap() as usize;
                    let blocks = m["blocks"].as_u64().unwrap() as usize;
                    *p = every_target_value(p, states, blocks, lie);
                })
            },
            readers,
        );
    }
    for (label, field, value) in
        [("one value more", "values", None), ("10^18 blocks", "blocks", Some(1_000_000_000_000_000_000u64))]
    {
        let readers = b.target_readers(Refuse);
        b.case(
            &format!("target table metadata: {label}"),
            |b| {
                reseal(&targets(b), "target-table", "target-table", |m, _| {
                    m[field] = json!(value.unwrap_or(m[field].as_u64().unwrap() + 1));
                })
            },
            readers,
        );
    }

    // Strategy files whose numbers the strategy cannot use.
    let evolved = |b: &Bench| b.d.join("evolved-official-0007.yzs");
    let learned = |b: &Bench| b.d.join("learned-official-0007.yzs");
    let readers = b.strategy_readers("evolved");
    b.case(
        "evolved values NaN",
        |b| reseal(&evolved(b), "evolved-anchors", "evolved-anchors", |_, p| f64s(p, f64::NAN)),
        readers,
    );
    let readers = b.strategy_readers("evolved");
    b.case(
        "evolved file of 12 values",
        |b| reseal(&evolved(b), "evolved-anchors", "evolved-anchors", |_, p| p.truncate(12 * 8)),
        readers,
    );
    let readers = b.strategy_readers("learned");
    b.case(
        "learned trial counts -1",
        |b| reseal(&learned(b), "learned-action-table", "learned-action-table", |_, p| f64s(p, -1.0)),
        readers,
    );
    let readers = b.strategy_readers("learned");
    b.case(
        "learned file of another game",
        |b| {
            reseal(&learned(b), "learned-action-table", "learned-action-table", |m, _| {
                m["categories"] = json!(["ones", "twos", "threes", "fours"])
            })
        },
        readers,
    );

    // A megabyte of valid metadata in each kind whose header is a few hundred bytes: refused
    // before it is parsed.
    let padded = |m: &mut Value| m["padding"] = json!("x".repeat(1 << 20));
    let readers = b.solo_readers(Refuse);
    b.case(
        "solitaire table with 1 MiB of metadata",
        |b| reseal(&solo(b), "solo-table", "solo-table", |m, _| padded(m)),
        readers,
    );
    let readers = b.target_readers(Refuse);
    b.case(
        "target table with 1 MiB of metadata",
        |b| reseal(&targets(b), "target-table", "target-table", |m, _| padded(m)),
        readers,
    );
    let readers = b.strategy_readers("evolved");
    b.case(
        "evolved file with 1 MiB of metadata",
        |b| reseal(&evolved(b), "evolved-anchors", "evolved-anchors", |m, _| padded(m)),
        readers,
    );
    let readers = b.strategy_readers("learned");
    b.case(
        "learned file with 1 MiB of metadata",
        |b| reseal(&learned(b), "learned-action-table", "learned-action-table", |m, _| padded(m)),
        readers,
    );
    let readers = all(&b);
    b.case(
        "manifest with 1 MiB of metadata",
        |b| reseal(&manifest_path(b), MANIFEST_KIND.name, MANIFEST_KIND.name, |m, _| padded(m)),
        readers,
    );

    println!("HOSTILE-SUMMARY {} forged files, {} failing runs", b.files, b.failures.len());
    assert!(b.files >= 40, "only {} forged files", b.files);
    assert!(b.failures.is_empty(), "{} failing runs:\n{}", b.failures.len(), b.failures.join("\n"));
}

/// Layer 4's entry of a manifest.
fn l4(m: &mut yz::duel::shard::Manifest) -> &mut LayerEntry {
    m.layers.iter_mut().find(|l| l.layer == 4).unwrap()
}
