//! Bytes and counts written for a reader, as every report and message of the two-player
//! solve prints them.

/// Bytes in GiB.
pub fn gib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

/// Bytes for a reader: in GiB with one decimal, or in MiB below 1 GiB (`35.2 GiB`,
/// `20.0 MiB`).
pub fn size(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.1} GiB", gib(bytes))
    } else {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    }
}

/// A count with its digits grouped by thousands, as the counts are printed:
/// `12671976997282` as `12,671,976,997,282`.
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
