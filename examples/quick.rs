use yz::game::{Game, Rules};
fn main() {
    let t = std::time::Instant::now();
    let s = yz::solo::solve(Game::full(Rules::Official));
    println!("{:.6} {:?}", s.start_value(), t.elapsed());
}
