//! The text of errors, the same on the command line and in the web API: typed input quoted
//! escaped (quotes, backslashes, control characters) and, where long, cut to its first
//! [`MAX_QUOTED_CHARS`] characters followed by its length, so that a 100 KB argument, a
//! request's field or a record's long line makes a short error that still shows what was
//! typed; and an error with its causes on one line ([`error_line`]).

use std::fmt;

/// Most characters of a typed text an error quotes.
pub const MAX_QUOTED_CHARS: usize = 48;

/// A typed text as an error quotes it ([`quote`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quoted<'t>(&'t str);

/// `text` as an error quotes it: `"fvies"`, or `"xxxx…" (100000 bytes)` where it is
/// longer than [`MAX_QUOTED_CHARS`] characters.
pub fn quote(text: &str) -> Quoted<'_> {
    Quoted(text)
}

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.0;
        match text.char_indices().nth(MAX_QUOTED_CHARS) {
            None => write!(f, "{text:?}"),
            Some((cut, _)) => {
                let shown = format!("{:?}", &text[..cut]);
                let open = &shown[..shown.len() - 1];
                write!(f, "{open}…\" ({} bytes)", text.len())
            }
        }
    }
}

/// The error and its causes on one line, each cause once (an error that already prints
/// its source, such as an OS error, is not followed by it again), control characters
/// escaped: a message may quote a file's or a record's bytes, which must not reach a
/// terminal as escape sequences or carriage returns.
pub fn error_line(error: &(dyn std::error::Error + 'static)) -> String {
    let mut line = String::new();
    let mut cause = Some(error);
    while let Some(error) = cause {
        let text = error.to_string();
        if !line.contains(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
        cause = error.source();
    }
    line.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_texts_are_quoted_whole_and_escaped() {
        assert_eq!(quote("fvies").to_string(), "\"fvies\"");
        assert_eq!(quote("a\"b\n\u{1b}[2J").to_string(), "\"a\\\"b\\n\\u{1b}[2J\"");
        let exactly = "x".repeat(MAX_QUOTED_CHARS);
        assert_eq!(quote(&exactly).to_string(), format!("\"{exactly}\""));
    }

    #[test]
    fn an_error_line_names_each_cause_once() {
        #[derive(Debug)]
        struct Reading(std::io::Error);
        impl fmt::Display for Reading {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("reading the card")
            }
        }
        impl std::error::Error for Reading {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let error = Reading(std::io::Error::other("disk full\r\n"));
        assert_eq!(error_line(&error), "reading the card: disk full\\r\\n");
        // A message that already prints its source is not followed by it again.
        let io = std::io::Error::other("disk full");
        let error = crate::store::StoreError::Io { path: "t.yzs".into(), action: "write", source: io };
        assert_eq!(error_line(&error), error.to_string());
        assert!(error.to_string().ends_with(": disk full"), "{error}");
    }

    #[test]
    fn long_texts_are_cut_with_their_length() {
        let long = format!("{}{}", "é".repeat(MAX_QUOTED_CHARS), "x".repeat(100_000));
        let quoted = quote(&long).to_string();
        assert_eq!(quoted, format!("\"{}…\" ({} bytes)", "é".repeat(MAX_QUOTED_CHARS), long.len()));
        assert!(quoted.len() < 200);
    }
}
