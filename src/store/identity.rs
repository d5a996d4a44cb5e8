//! What a store file was made for, in one scheme for every kind of file: the kind's format
//! version and the game.
//!
//! Every kind of file yz writes is a [`FileKind`] constant (its store kind string, the
//! version of its payload and metadata layout, and what a user should do about a file that
//! does not fit). Every file's metadata starts with the same three keys, its [`Identity`]:
//!
//! | key             | value                                                     |
//! |-----------------|-----------------------------------------------------------|
//! | `table_version` | [`FileKind::version`] when written                        |
//! | `rules`         | the rules' name, as on the command line                   |
//! | `categories`    | the boxes in play, named as the card names them, in card order |
//!
//! Rules and boxes together name one [`Game`]. [`FileKind::check`] is the one check of them,
//! and [`IdentityError`] the one error: it names the file, what differs, the expected and
//! the found value, and what to do.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{StoreError, StoreFile};
use crate::game::{Game, Rules};

/// Metadata key of the kind's format version.
const VERSION_KEY: &str = "table_version";
/// Metadata key of the rules' name.
const RULES_KEY: &str = "rules";
/// Metadata key of the boxes in play.
const CATEGORIES_KEY: &str = "categories";
/// What wrote a file: this yz.
const PRODUCER: &str = concat!("yz ", env!("CARGO_PKG_VERSION"));

/// A kind of file yz writes: its store kind and the version of its layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileKind {
    /// The store kind written in the file's header, e.g. `solo-table`.
    pub name: &'static str,
    /// Version of this kind's payload and metadata layout: bump it when either changes
    /// meaning (or when the states are numbered otherwise), so that older files are refused
    /// instead of misread.
    pub version: u32,
    /// What to do with a file of this kind that was made for something else.
    pub remedy: &'static str,
    /// The most metadata a file of this kind may hold, in bytes (at most
    /// [`MAX_METADATA_LEN`](super::MAX_METADATA_LEN)): a few times what its writer puts
    /// there, so that a forged header is refused before it is parsed.
    pub metadata_limit: usize,
}

/// The metadata every file starts with: its kind's version and the game it was made for.
///
/// Typed metadata embeds it with `#[serde(flatten)]`, so its keys are the same in every
/// kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// [`FileKind::version`] when written.
    pub table_version: u32,
    /// The rules' name.
    pub rules: String,
    /// The boxes in play, named as the card names them, in card order.
    pub categories: Vec<String>,
}

impl Identity {
    /// The game the identity names, if this yz knows it: rules by name, and box names of
    /// those rules in card order. Its version is not looked at.
    pub fn game(&self) -> Option<Game> {
        let names: Vec<&str> = self.categories.iter().map(String::as_str).collect();
        game_of(self.rules.parse().ok()?, &names)
    }
}

/// The game of `rules` whose boxes are exactly `names`, in card order.
fn game_of(rules: Rules, names: &[&str]) -> Option<Game> {
    Game::from_list(rules, &names.join(",")).ok().filter(|game| game.box_names() == names)
}

/// What of a file's identity differs from what the reader needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// The kind's format version.
    Version,
    /// The rules.
    Rules,
    /// The boxes in play.
    Categories,
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Field::Version => "table version",
            Field::Rules => "rules",
            Field::Categories => "categories",
        })
    }
}

/// A sound store file that was made for another game or by another version of its kind.
#[derive(Debug, thiserror::Error)]
#[error("{kind} {} was made for {field} {found}, not {expected}; {remedy}", .path.display())]
pub struct IdentityError {
    /// The file.
    pub path: PathBuf,
    /// Its store kind.
    pub kind: &'static str,
    /// What differs.
    pub field: Field,
    /// What the reader needs.
    pub expected: String,
    /// What the file says ("(none)" when it says nothing).
    pub found: String,
    /// What to do about it.
    pub remedy: &'static str,
}

impl FileKind {
    /// The identity of a file of this kind made for `game`.
    pub fn identity(self, game: Game) -> Identity {
        Identity {
            table_version: self.version,
            rules: game.rules.name().to_owned(),
            categories: game.box_names().into_iter().map(str::to_owned).collect(),
        }
    }

    /// Metadata of a file of this kind made for `game`: its [`Identity`] and the yz that
    /// wrote it. Kinds add their own keys to it.
    pub fn metadata(self, game: Game) -> Value {
        let mut metadata = serde_json::to_value(self.identity(game)).expect("an identity serialises");
        metadata["producer"] = Value::from(PRODUCER);
        metadata
    }

    /// Metadata of a file of this kind that holds no one game (a history of games under any
    /// rules): its version and the yz that wrote it, without `rules` and `categories`.
    pub fn metadata_without_game(self) -> Value {
        let mut metadata = serde_json::Map::new();
        metadata.insert(VERSION_KEY.to_owned(), Value::from(self.version));
        metadata.insert("producer".to_owned(), Value::from(PRODUCER));
        Value::Object(metadata)
    }

    /// Opens the store file at `path` as [`Self::open`] does a file of this kind that holds
    /// no one game: every byte checked, and its version, the only identity it has.
    ///
    /// # Safety
    /// As for [`StoreFile::open`].
    pub unsafe fn open_without_game<E: From<StoreError> + From<IdentityError>>(
        self,
        path: &Path,
    ) -> Result<StoreFile, E> {
        // SAFETY: the caller keeps the file unchanged while the map lives.
        let file = unsafe { self.open_unchecked(path) }?;
        self.check_version(path, file.metadata())?;
        Ok(file)
    }

    /// Opens the store file at `path` ([`StoreFile::open`]: every byte checked, of this kind)
    /// and [checks](Self::check) that it was made for `game` by this version.
    ///
    /// # Safety
    /// As for [`StoreFile::open`].
    pub unsafe fn open<E: From<StoreError> + From<IdentityError>>(
        self,
        path: &Path,
        game: Game,
    ) -> Result<StoreFile, E> {
        // SAFETY: the caller keeps the file unchanged while the map lives.
        let file = unsafe { self.open_unchecked(path) }?;
        self.check(path, file.metadata(), Some(game))?;
        Ok(file)
    }

    /// A store file of this kind made for `game`, from its whole `bytes` (no file system:
    /// [`StoreFile::from_bytes`]), checked as [`Self::open`] checks a file; `label` names
    /// the bytes in errors.
    pub fn from_bytes<E: From<StoreError> + From<IdentityError>>(
        self,
        bytes: &[u8],
        label: &Path,
        game: Game,
    ) -> Result<StoreFile, E> {
        let file = StoreFile::from_bytes(bytes, label, self.name, self.metadata_limit)?;
        self.check(label, file.metadata(), Some(game))?;
        Ok(file)
    }

    /// Opens the store file at `path` as [`StoreFile::open`] does for this kind, refusing
    /// metadata over [`Self::metadata_limit`] before parsing it; its identity is left to the
    /// caller to [check](Self::check).
    ///
    /// # Safety
    /// As for [`StoreFile::open`].
    pub unsafe fn open_unchecked(self, path: &Path) -> Result<StoreFile, StoreError> {
        // SAFETY: the caller keeps the file unchanged while the map lives.
        unsafe { StoreFile::open_with_metadata_limit(path, self.name, self.metadata_limit) }
    }

    /// The one check of a file's identity: that the `metadata` of the file at `path` has
    /// this kind's version, names a game this yz knows, and, if `expected` is given, that
    /// game. Returns the file's game. Checks the version first, since another version may
    /// mean other things by the other keys.
    pub fn check(self, path: &Path, metadata: &Value, expected: Option<Game>) -> Result<Game, IdentityError> {
        let error = |field, expected: String, key| self.mismatch(path, metadata, field, expected, key);
        self.check_version(path, metadata)?;
        let rules = metadata.get(RULES_KEY).and_then(Value::as_str).and_then(|name| name.parse::<Rules>().ok());
        let rules = match (rules, expected) {
            (Some(rules), None) => rules,
            (Some(rules), Some(game)) if rules == game.rules => rules,
            (_, Some(game)) => return Err(error(Field::Rules, game.rules.name().to_owned(), RULES_KEY)),
            (None, None) => {
                let known: Vec<&str> = Rules::all().into_iter().map(Rules::name).collect();
                return Err(error(Field::Rules, format!("one of {}", known.join(", ")), RULES_KEY));
            }
        };
        let names: Option<Vec<&str>> = metadata
            .get(CATEGORIES_KEY)
            .and_then(Value::as_array)
            .and_then(|names| names.iter().map(Value::as_str).collect());
        match (names.and_then(|names| game_of(rules, &names)), expected) {
            (Some(game), None) => Ok(game),
            (Some(game), Some(wanted)) if game == wanted => Ok(game),
            (_, Some(wanted)) => Err(error(Field::Categories, wanted.box_names().join(","), CATEGORIES_KEY)),
            (None, None) => Err(error(
                Field::Categories,
                format!("a list of {rules} boxes in card order ({})", Game::full(rules).box_names().join(",")),
                CATEGORIES_KEY,
            )),
        }
    }

    /// That the `metadata` of the file at `path` has this kind's version.
    fn check_version(self, path: &Path, metadata: &Value) -> Result<(), IdentityError> {
        if metadata.get(VERSION_KEY).and_then(Value::as_u64) == Some(u64::from(self.version)) {
            return Ok(());
        }
        Err(self.mismatch(path, metadata, Field::Version, self.version.to_string(), VERSION_KEY))
    }

    /// The error for a file at `path` whose metadata `key` (the `field`) is not `expected`.
    fn mismatch(self, path: &Path, metadata: &Value, field: Field, expected: String, key: &str) -> IdentityError {
        IdentityError {
            path: path.to_owned(),
            kind: self.name,
            field,
            expected,
            found: shown(metadata.get(key)),
            remedy: self.remedy,
        }
    }
}

/// A metadata value as an error message shows it: a string as it is, a list of strings
/// comma-separated (as `--categories` takes them), anything else as JSON.
fn shown(value: Option<&Value>) -> String {
    match value {
        None => "(none)".to_owned(),
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
            let names: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            if names.is_empty() { "(none)".to_owned() } else { names.join(",") }
        }
        Some(other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::game::Category;

    const KIND: FileKind = FileKind { name: "test-table", version: 3, remedy: "make another", metadata_limit: 1 << 10 };

    fn game() -> Game {
        Game::from_list(Rules::OFFICIAL, "ones,fives,yahtzee").unwrap()
    }

    fn check(metadata: &Value, expected: Option<Game>) -> Result<Game, IdentityError> {
        KIND.check(Path::new("t.yzs"), metadata, expected)
    }

    #[test]
    fn metadata_round_trips_and_names_the_game() {
        let metadata = KIND.metadata(game());
        assert_eq!(metadata["table_version"], json!(3));
        assert_eq!(metadata["rules"], json!("official"));
        assert_eq!(metadata["categories"], json!(["ones", "fives", "yahtzee"]));
        assert_eq!(check(&metadata, Some(game())).unwrap(), game());
        assert_eq!(check(&metadata, None).unwrap(), game());
        assert_eq!(KIND.identity(game()).game(), Some(game()));
        let yatzy = Game::full(Rules::yatzy());
        assert_eq!(check(&KIND.metadata(yatzy), None).unwrap(), yatzy);
    }

    #[test]
    fn each_difference_is_named_with_expected_found_and_remedy() {
        let good = KIND.metadata(game());
        let differs = |edit: &dyn Fn(&mut Value), expected: Option<Game>| {
            let mut metadata = good.clone();
            edit(&mut metadata);
            check(&metadata, expected).unwrap_err()
        };

        let err = differs(&|m| m["table_version"] = json!(2), Some(game()));
        assert_eq!((err.field, err.expected.as_str(), err.found.as_str()), (Field::Version, "3", "2"));
        assert_eq!(err.to_string(), "test-table t.yzs was made for table version 2, not 3; make another");
        let err = differs(&|m| *m = json!({}), None);
        assert_eq!((err.field, err.found.as_str()), (Field::Version, "(none)"));

        let other = Game { rules: Rules::NO_BONUS, ..game() };
        let err = check(&good, Some(other)).unwrap_err();
        assert_eq!((err.field, err.expected.as_str(), err.found.as_str()), (Field::Rules, "no-bonus", "official"));
        let err = differs(&|m| m["rules"] = json!("bogus"), None);
        assert_eq!((err.field, err.found.as_str()), (Field::Rules, "bogus"));
        assert!(err.expected.contains("official") && err.expected.contains("yatzy"), "{err}");

        let other = Game { categories: game().categories.with(Category::Twos), ..game() };
        let err = check(&good, Some(other)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "test-table t.yzs was made for categories ones,fives,yahtzee, not ones,twos,fives,yahtzee; make another"
        );
        // Out of card order, repeated, unknown, empty or not a list: no game of the rules.
        for categories in [
            json!(["fives", "ones", "yahtzee"]),
            json!(["ones", "ones"]),
            json!(["ones", "pair"]),
            json!([]),
            json!("ones"),
            json!([1, 2]),
        ] {
            let err = differs(&|m| m["categories"] = categories.clone(), None);
            assert_eq!(err.field, Field::Categories, "{categories}");
            assert!(err.expected.contains("official boxes in card order"), "{err}");
        }
    }

    #[test]
    fn metadata_over_the_kinds_limit_is_refused_unparsed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.yzs");
        let mut metadata = KIND.metadata(game());
        crate::store::write_atomic(&path, KIND.name, &metadata, &[1, 2, 3]).unwrap();
        // SAFETY: the test's own file, unchanged while mapped.
        let file = unsafe { KIND.open::<crate::store::TableError>(&path, game()) }.unwrap();
        assert_eq!(file.payload(), &[1, 2, 3]);
        drop(file);
        metadata["padding"] = json!("x".repeat(KIND.metadata_limit));
        crate::store::write_atomic(&path, KIND.name, &metadata, &[1, 2, 3]).unwrap();
        // SAFETY: as above.
        let err = unsafe { KIND.open_unchecked(&path) }.unwrap_err().to_string();
        assert!(err.contains("exceeds the 1024 bytes of its kind"), "{err}");
    }
}
