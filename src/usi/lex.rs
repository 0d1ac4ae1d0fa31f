//! The lexical rules shared by the parser and the printers: what reads as an integer token,
//! and which kept-over tokens (`extra`) may be printed back without changing a line's meaning.
//! A leaf: the types print through it and the parser reads through it.

/// Lenient reading of an integer of any size: an optional sign and one or more ASCII digits,
/// saturating at the `i128` range (far beyond any field). `None` for anything else.
pub(crate) fn lenient_integer(text: &str) -> Option<i128> {
    let (negative, digits) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let magnitude = digits.bytes().fold(0i128, |v, d| {
        v.saturating_mul(10).saturating_add(i128::from(d - b'0'))
    });
    Some(if negative { -magnitude } else { magnitude })
}

/// The `extra` tokens that print as part of a well-formed line, in order: empty tokens,
/// tokens with whitespace (they would split) and keywords of the grammar (they would take a
/// meaning) are left out, and so is an integer that does not follow a printed token (it would
/// read as a stray value). Values from a lenient parse never contain these, so their lines
/// round-trip; the filter keeps hand-built values from printing malformed lines.
pub(crate) fn printable_extras<'a>(extra: &'a [String], keywords: &[&str]) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::with_capacity(extra.len());
    for token in extra {
        let printable = !token.is_empty()
            && !token.bytes().any(|b| b.is_ascii_whitespace())
            && !keywords.contains(&token.as_str())
            && (!out.is_empty() || lenient_integer(token).is_none());
        if printable {
            out.push(token);
        }
    }
    out
}
