//! `yz serve`: the web app on this machine.

use std::net::{IpAddr, SocketAddr};
use std::path::Path;

use anyhow::{Context, Result};
use clap::Args;

use yz::coach::serve::{SERVE_DUEL_POSITIONS, ServeConfig};

/// `yz serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// The address to listen on: this machine only by default (127.0.0.1, or localhost);
    /// 0.0.0.0 opens it to the network (the app has no login).
    #[arg(long, default_value = "127.0.0.1", value_parser = parse_bind)]
    bind: IpAddr,
    /// The port (0 picks a free one).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// A name the server is reached by besides its IP addresses and localhost (a LAN name
    /// such as yz.local; repeat for more): requests naming any other host are refused, so
    /// that a web page elsewhere cannot reach the server through a browser here.
    #[arg(long = "host", value_name = "NAME")]
    host_names: Vec<String>,
}

/// An address to listen on: an IP address, or `localhost` for 127.0.0.1 (other names are
/// refused rather than resolved, since a name may stand for several addresses).
fn parse_bind(text: &str) -> Result<IpAddr, String> {
    if text.eq_ignore_ascii_case("localhost") {
        return Ok(IpAddr::from([127, 0, 0, 1]));
    }
    text.parse().map_err(|_| {
        let text = yz::quote::quote(text);
        format!("{text} is not an IP address; give one such as 127.0.0.1, ::1 or 0.0.0.0, or localhost")
    })
}

/// Runs `yz serve` until interrupted; with `json`, the line saying where it listens is a
/// JSON object (`url`, `data`).
pub fn run(args: ServeArgs, data: &Path, json: bool) -> Result<()> {
    let exe = std::env::current_exe().context("finding this program, which builds the target tables")?;
    let config = ServeConfig {
        data: data.to_path_buf(),
        duel_positions: SERVE_DUEL_POSITIONS,
        host_names: args.host_names,
        exe,
    };
    let address = SocketAddr::new(args.bind, args.port);
    if !args.bind.is_loopback() {
        eprintln!(
            "warning: yz serve listens on {}, beyond this machine: anyone who can reach it may use \
             its CPU and read its answers (the app has no login); --bind 127.0.0.1 keeps it local",
            args.bind
        );
    }
    yz::coach::serve::run(address, config, |bound| {
        if json {
            println!("{}", serde_json::json!({ "url": format!("http://{bound}/"), "data": data }));
        } else {
            println!("yz serve: open http://{bound}/ (tables in {}; Ctrl-C stops)", data.display());
        }
    })
    .with_context(|| format!("serving on {address}"))
}
