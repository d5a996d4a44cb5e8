//! `yz serve`: the web app on this machine.

use std::net::{IpAddr, SocketAddr};
use std::path::Path;

use anyhow::{Context, Result};
use clap::Args;

use yz::serve::{SERVE_DUEL_POSITIONS, ServeConfig};

/// `yz serve`.
#[derive(Args)]
pub struct ServeArgs {
    /// The address to listen on: this machine only by default; 0.0.0.0 opens it to the
    /// network (the app has no login).
    #[arg(long, default_value = "127.0.0.1")]
    bind: IpAddr,
    /// The port (0 picks a free one).
    #[arg(long, default_value_t = 8080)]
    port: u16,
}

/// Runs `yz serve` until interrupted.
pub fn run(args: ServeArgs, data: &Path) -> Result<()> {
    let config = ServeConfig { data: data.to_path_buf(), duel_positions: SERVE_DUEL_POSITIONS };
    let address = SocketAddr::new(args.bind, args.port);
    yz::serve::run(address, config, |bound| {
        println!("yz serve: open http://{bound}/ (tables in {}; Ctrl-C stops)", data.display());
    })
    .with_context(|| format!("serving on {address}"))
}
