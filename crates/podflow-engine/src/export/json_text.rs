//! JSON's pieces written straight into a byte buffer, as `serde_json`'s
//! compact writer writes them: strings escaped the way it escapes them (`\"`,
//! `\\`, `\b`, `\t`, `\n`, `\f`, `\r`, and `\u00xx` in lower-case hex for the
//! other control characters; everything else as it is, `DEL` and non-ASCII
//! included), integers in decimal.
//!
//! `serde_json` looks a string over one byte at a time; this looks it over
//! eight at a time (a word with no quote, backslash or control character is
//! copied whole), which is what the trace's long details and log lines need:
//! escaping was a ninth of a large run's instructions.

use std::fmt;

/// Writes `text` as a JSON string, quotes included.
pub fn string(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    contents(out, text);
    out.push(b'"');
}

/// Writes `text` escaped, without the quotes (a string made of pieces).
pub fn contents(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len());
    let mut copied = 0;
    let mut words = bytes.chunks_exact(8);
    for (n, word) in (&mut words).enumerate() {
        if needs_escape(u64::from_le_bytes(word.try_into().unwrap_or_default())) {
            escape_from(out, bytes, n * 8, 8, &mut copied);
        }
    }
    let rest = words.remainder();
    // The last piece, padded with a letter (which needs no escape).
    let mut last = [b'a'; 8];
    last[..rest.len()].copy_from_slice(rest);
    if needs_escape(u64::from_le_bytes(last)) {
        escape_from(
            out,
            bytes,
            bytes.len() - rest.len(),
            rest.len(),
            &mut copied,
        );
    }
    out.extend_from_slice(&bytes[copied..]);
}

/// Escapes what needs it among the `len` bytes from `start`, copying what
/// came before each (from `copied` on).
fn escape_from(out: &mut Vec<u8>, bytes: &[u8], start: usize, len: usize, copied: &mut usize) {
    for at in start..start + len {
        if let Some(escape) = escape(bytes[at]) {
            out.extend_from_slice(&bytes[*copied..at]);
            escape.write(out);
            *copied = at + 1;
        }
    }
}

/// Writes a name of the trace's fixed vocabulary (a stage, an outcome, a
/// component's role) as a JSON string: none has a byte that escapes (a test
/// checks each), so it is copied as it is.
pub fn name(out: &mut Vec<u8>, name: &str) {
    debug_assert!(
        !name.bytes().any(|b| escape(b).is_some()),
        "{name:?} needs escaping"
    );
    out.push(b'"');
    out.extend_from_slice(name.as_bytes());
    out.push(b'"');
}

/// Writes what `value` displays as a JSON string (serde's `collect_str`).
pub fn display(out: &mut Vec<u8>, value: &impl fmt::Display) {
    out.push(b'"');
    // Writing into memory cannot fail, and no `Display` here fails.
    let _ = fmt::write(&mut Escaping(out), format_args!("{value}"));
    out.push(b'"');
}

/// Writes an unsigned integer.
pub fn unsigned(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Writes a signed integer.
pub fn signed(out: &mut Vec<u8>, n: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// A `fmt::Write` that escapes what is written into it.
struct Escaping<'a>(&'a mut Vec<u8>);

impl fmt::Write for Escaping<'_> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        contents(self.0, text);
        Ok(())
    }
}

/// Whether any of the eight bytes is a control character, a quote or a
/// backslash (the bit tricks are exact for "any"; which byte, the caller
/// finds one by one).
fn needs_escape(word: u64) -> bool {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    let quote = has_zero_byte(word ^ (ONES * u64::from(b'"')));
    let backslash = has_zero_byte(word ^ (ONES * u64::from(b'\\')));
    below_space | quote | backslash != 0
}

/// Non-zero when a byte of `word` is zero.
fn has_zero_byte(word: u64) -> u64 {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    word.wrapping_sub(ONES) & !word & HIGHS
}

/// How one byte is escaped, if it is.
enum Escape {
    /// A backslash and this letter (`\n`, `\"`).
    Short(u8),
    /// `\u00` and two hex digits.
    Unicode(u8),
}

impl Escape {
    fn write(self, out: &mut Vec<u8>) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        match self {
            Escape::Short(letter) => out.extend_from_slice(&[b'\\', letter]),
            Escape::Unicode(byte) => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0xF)],
            ]),
        }
    }
}

/// `serde_json`'s table (`ESCAPE` in `ser.rs`).
fn escape(byte: u8) -> Option<Escape> {
    Some(match byte {
        0x08 => Escape::Short(b'b'),
        b'\t' => Escape::Short(b't'),
        b'\n' => Escape::Short(b'n'),
        0x0C => Escape::Short(b'f'),
        b'\r' => Escape::Short(b'r'),
        b'"' => Escape::Short(b'"'),
        b'\\' => Escape::Short(b'\\'),
        0x00..=0x1F => Escape::Unicode(byte),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn written(text: &str) -> String {
        let mut out = Vec::new();
        string(&mut out, text);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn every_byte_below_128_escapes_as_serde_json_escapes_it() {
        for byte in 0u8..128 {
            let one = char::from(byte).to_string();
            // Alone, and in a long string on each side of a word boundary.
            for text in [
                one.clone(),
                format!("abcdefg{one}hijklmnop"),
                format!("{one}{}", "x".repeat(20)),
            ] {
                assert_eq!(
                    written(&text),
                    serde_json::to_string(&text).unwrap(),
                    "{byte:#x}"
                );
            }
        }
    }

    #[test]
    fn non_ascii_and_del_are_written_as_they_are() {
        for text in [
            "héllo wörld, ünïcode 日本語 \u{7f}",
            "\u{2028}\u{2029}",
            "🙂🙂🙂🙂🙂",
        ] {
            assert_eq!(written(text), serde_json::to_string(text).unwrap());
        }
    }

    #[test]
    fn displayed_values_are_escaped_as_strings() {
        let mut out = Vec::new();
        display(&mut out, &"say \"hi\"\n");
        assert_eq!(out, serde_json::to_vec("say \"hi\"\n").unwrap());
    }

    #[test]
    fn integers_read_as_serde_json_writes_them() {
        for n in [0, 1, 9, 10, 12_345, i64::MAX, i64::MIN, -1] {
            let mut out = Vec::new();
            signed(&mut out, n);
            assert_eq!(out, serde_json::to_vec(&n).unwrap());
        }
        let mut out = Vec::new();
        unsigned(&mut out, u64::MAX);
        assert_eq!(out, serde_json::to_vec(&u64::MAX).unwrap());
    }

    #[test]
    fn no_fixed_name_has_a_byte_that_escapes() {
        use crate::trace::{Actor, Outcome, StageName};
        let node: crate::trace::NodeName = std::sync::Arc::from("n");
        let on_node = [
            Actor::Kubelet(node.clone()),
            Actor::Containerd(node.clone()),
            Actor::Cni(node.clone()),
            Actor::Csi(node.clone()),
            Actor::KubeProxy(node),
        ];
        let roles = Actor::WITHOUT_NODE
            .into_iter()
            .chain(on_node)
            .map(|actor| actor.role());
        let names = StageName::ALL
            .iter()
            .map(|s| s.as_str())
            .chain(Outcome::ALL.iter().map(|o| o.as_str()))
            .chain(roles);
        for text in names {
            let mut out = Vec::new();
            name(&mut out, text);
            assert_eq!(out, serde_json::to_vec(text).unwrap(), "{text}");
        }
    }

    proptest! {
        #[test]
        fn any_string_is_escaped_as_serde_json_escapes_it(text in "\\PC*|[\\x00-\\x7f]{0,40}") {
            prop_assert_eq!(written(&text), serde_json::to_string(&text).unwrap());
        }
    }
}
