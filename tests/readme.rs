//! The README's examples are tests: every ```` ```console ```` block of README.md runs here,
//! command by command, and its output must match what the README prints. Times print as
//! `[..]` (any text) and the data directory as `[DATA]`; `...` on a line of its own
//! stands for lines left out. A change that makes the README stale fails CI.
//!
//! The commands run in a fresh, empty directory, with `YZ_DATA`
//! naming an empty data directory, so the examples solve their tables as a new user's
//! first commands do. They take a few minutes in release builds; in debug builds (far too
//! slow for the full-game examples) the test is ignored.
//!
//! After changing what a command prints, `TRYCMD=overwrite cargo test --release readme`
//! writes the new output into README.md (the wildcards that still match are kept); read
//! the diff before committing it.

use std::path::Path;

#[test]
#[cfg_attr(debug_assertions, ignore = "the README's full-game examples need a release build")]
fn readme_examples_print_what_the_readme_shows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = tempfile::tempdir().unwrap();
    let data = work.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let readme = work.path().join("README.md");
    std::fs::copy(root.join("README.md"), &readme).unwrap();
    // An input directory beside the case makes trycmd run the commands in a fresh copy
    // of it, so files they write (`--plot scores.svg`) stay out of the repository.
    // The game records the examples review (docs/records) are in it.
    let inputs = work.path().join("README.in");
    std::fs::create_dir(&inputs).unwrap();
    for record in std::fs::read_dir(root.join("docs/records")).unwrap() {
        let record = record.unwrap().path();
        std::fs::copy(&record, inputs.join(record.file_name().unwrap())).unwrap();
    }
    let cases = trycmd::TestCases::new();
    cases
        .register_bin("yz", Path::new(env!("CARGO_BIN_EXE_yz")))
        .env("YZ_DATA", data.display().to_string())
        .env("NO_COLOR", "1")
        .insert_var("[DATA]", data.display().to_string())
        .unwrap()
        .case(&readme);
    cases.run();
    if std::env::var_os("TRYCMD").is_some_and(|mode| mode == "overwrite") {
        std::fs::copy(&readme, root.join("README.md")).unwrap();
    }
}
