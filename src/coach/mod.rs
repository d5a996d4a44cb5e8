//! The coach: what a player uses to play and to learn from games.
//!
//! - [`record`]: game records, read from and written to text or JSON;
//! - [`review`]: every decision of a record judged against the best play, solitaire or
//!   two-player;
//! - [`history`]: a summary of each reviewed game, kept over time;
//! - [`play`]: a coached game, dice rolled or entered, each decision judged as it is made;
//! - [`why`]: what a choice gives and gives up, aspect by aspect (a review's breakdowns,
//!   the advisor's reasons);
//! - [`requests`]: the web app's requests, checked and answered whatever carries them;
//! - [`wasm`]: the same requests answered in the browser, by the library built for
//!   WebAssembly (`scripts/build-web`);
//! - [`serve`] (cargo feature `serve`, on by default): all of it as a local web app. A
//!   program that embeds yz without a web server leaves the feature off and compiles no
//!   HTTP stack.

pub mod history;
pub mod play;
pub mod record;
pub mod requests;
pub mod review;
#[cfg(feature = "serve")]
pub mod serve;
pub mod why;
// Built for the browser; natively only for its tests and docs.
#[cfg(any(target_arch = "wasm32", test, doc))]
pub mod wasm;
