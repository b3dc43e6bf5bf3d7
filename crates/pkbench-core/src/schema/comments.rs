//! `pkbench:` comments trailing a column definition inside `CREATE TABLE ( … )`:
//!
//! ```sql
//! name text, -- pkbench: len=8..40 nulls=0.2
//! note text /* pkbench: nulls=0.5 */
//! );
//! ```
//!
//! The parser drops comments, so they are read from the statement's tokens: a comment belongs to
//! the definition it sits in (before its comma or the closing parenthesis), or to the one just
//! closed when it follows that definition's comma on the same line. A comment on a line of its
//! own belongs to no column.

use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Whitespace};

/// The marker that makes a comment pkbench's.
const MARKER: &str = "pkbench:";

/// `(where the definition starts, comment text from "pkbench:")` for every `pkbench:` comment
/// trailing a definition of the statement's first parenthesised list.
pub(super) fn trailing(tokens: &[TokenWithSpan]) -> Vec<(Location, String)> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    // Where the current definition starts, and where the one before the last comma started.
    let mut current: Option<Location> = None;
    let mut previous: Option<Location> = None;
    let mut comma_line: Option<u64> = None;
    for t in tokens {
        let text = match &t.token {
            Token::Whitespace(Whitespace::SingleLineComment { comment, .. }) => Some(comment.trim()),
            Token::Whitespace(Whitespace::MultiLineComment(comment)) => Some(comment.trim()),
            _ => None,
        };
        match (&t.token, text) {
            (_, Some(text)) => {
                if depth != 1 || !text.starts_with(MARKER) {
                    continue;
                }
                let owner = match current {
                    Some(start) => Some(start),
                    None if comma_line == Some(t.span.start.line) => previous,
                    None => None,
                };
                if let Some(start) = owner {
                    out.push((start, text.to_string()));
                }
            }
            (Token::Whitespace(_), None) => {}
            (Token::LParen, _) => {
                depth += 1;
            }
            (Token::RParen, _) => {
                if depth == 1 {
                    // The list is closed: table options after it hold no columns.
                    break;
                }
                depth = depth.saturating_sub(1);
            }
            (Token::Comma, _) if depth == 1 => {
                previous = current.take();
                comma_line = Some(t.span.end.line);
            }
            _ if depth == 1 && current.is_none() => current = Some(t.span.start),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::PostgreSqlDialect;
    use sqlparser::tokenizer::Tokenizer;

    fn comments(sql: &str) -> Vec<(u64, String)> {
        let tokens = Tokenizer::new(&PostgreSqlDialect {}, sql).tokenize_with_location().unwrap();
        trailing(&tokens).into_iter().map(|(at, text)| (at.line, text)).collect()
    }

    #[test]
    fn belong_to_the_definition_they_trail() {
        let sql = "CREATE TABLE t ( -- pkbench: nobody\n  id int, -- pkbench: a=1\n  -- pkbench: on its own line\n  n varchar(3) /* pkbench: b=2 */,\n  x text -- pkbench: c=3\n) -- pkbench: after";
        assert_eq!(comments(sql), [(2, "pkbench: a=1".into()), (4, "pkbench: b=2".into()), (5, "pkbench: c=3".into())]);
        // Other comments are not pkbench's.
        assert!(comments("CREATE TABLE t (id int, -- the key\n x int)").is_empty());
    }
}
