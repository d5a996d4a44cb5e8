//! The documentation's examples are tests: every ```` ```console ```` block of README.md and
//! of every page in docs/ (docs/*.md) runs here, command by command, and its output must
//! match what the page prints. Times print as `[..]` (any text) and the data directory as
//! `[DATA]`; `...` on a line of its own stands for lines left out. A change that makes a
//! page stale fails CI. A block that is not meant to run takes another fence (`sh`, `text`).
//!
//! Each page is a case of its own, run in turn: its commands run in a fresh directory
//! holding the game records the examples review (docs/records), with `YZ_DATA` naming an
//! empty data directory of its own, so each page's examples solve their tables as a new
//! user's first commands do. They take a few minutes in release builds; in debug builds
//! (far too slow for the full-game examples) the test is ignored.
//!
//! After changing what a command prints, `TRYCMD=overwrite cargo test --release readme`
//! writes the new output into the pages (the wildcards that still match are kept); read the
//! diff before committing it.

use std::path::{Path, PathBuf};

/// README.md and docs/*.md, as paths relative to the repository.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .map(|path| Path::new("docs").join(path.file_name().unwrap()))
        .collect();
    docs.sort();
    std::iter::once(PathBuf::from("README.md")).chain(docs).collect()
}

#[test]
#[cfg_attr(debug_assertions, ignore = "the documentation's full-game examples need a release build")]
fn readme_examples_print_what_the_readme_shows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let overwrite = std::env::var_os("TRYCMD").is_some_and(|mode| mode == "overwrite");
    let work = tempfile::tempdir().unwrap();
    let mut failed = Vec::new();
    for page in pages(root) {
        // README.md runs as README.md, docs/players.md as docs-players.md.
        let name = page.with_extension("").to_str().unwrap().replace('/', "-");
        let case = work.path().join(format!("{name}.md"));
        std::fs::copy(root.join(&page), &case).unwrap();
        // trycmd runs a case's commands in the input directory beside it (`NAME.in`), so
        // files they write (`--plot scores.svg`) stay out of the repository. The game records
        // the examples review are in it where they are in the repository (`docs/records/`),
        // whose root is where a reader runs the commands.
        let inputs = work.path().join(format!("{name}.in"));
        let records = inputs.join("docs/records");
        std::fs::create_dir_all(&records).unwrap();
        for record in std::fs::read_dir(root.join("docs/records")).unwrap() {
            let record = record.unwrap().path();
            std::fs::copy(&record, records.join(record.file_name().unwrap())).unwrap();
        }
        let data = work.path().join(format!("{name}.data"));
        std::fs::create_dir(&data).unwrap();
        let cases = trycmd::TestCases::new();
        cases
            .register_bin("yz", Path::new(env!("CARGO_BIN_EXE_yz")))
            .env("YZ_DATA", data.display().to_string())
            .env("NO_COLOR", "1")
            .insert_var("[DATA]", data.display().to_string())
            .unwrap()
            .case(&case);
        // trycmd panics when a case fails; every page still runs, and the test fails after.
        if std::panic::catch_unwind(|| cases.run()).is_err() {
            failed.push(page.display().to_string());
        }
        if overwrite {
            std::fs::copy(&case, root.join(&page)).unwrap();
        }
    }
    assert!(failed.is_empty(), "the examples of {} print something else than the page shows", failed.join(", "));
}
