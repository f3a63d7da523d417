//! Turns the bytes of an input file into text, refusing what kubectl's YAML
//! reader refuses: files too large to be manifests, control characters (a
//! binary file), and bytes that are not UTF-8.
//!
//! kubectl decodes a UTF-16 file that starts with a byte-order mark
//! (`FileVisitor.Visit` in `staging/src/k8s.io/cli-runtime/pkg/resource/visitor.go`)
//! and its YAML reader (go-yaml's `readerc.go`) rejects the rest with
//! `control characters are not allowed` and `invalid leading UTF-8 octet`.

use std::borrow::Cow;

use super::location::{InputError, Location};
use super::tree::line_column;

/// The largest input podflow reads: 16 MiB, far above any real manifest.
pub const MAX_INPUT_BYTES: usize = 16 * 1024 * 1024;

/// The text of `bytes`, or why it cannot be a manifest.
pub fn decode<'a>(file: &str, bytes: &'a [u8]) -> Result<Cow<'a, str>, InputError> {
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(InputError::file(
            file,
            format!(
                "error reading {file}: the file is {} bytes, larger than the 16 MiB ({MAX_INPUT_BYTES} bytes) podflow reads",
                bytes.len()
            ),
        ));
    }
    let text = match bytes {
        [0xFF, 0xFE, rest @ ..] => Cow::Owned(utf16(file, rest, u16::from_le_bytes)?),
        [0xFE, 0xFF, rest @ ..] => Cow::Owned(utf16(file, rest, u16::from_be_bytes)?),
        _ => {
            let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
            match std::str::from_utf8(bytes) {
                Ok(text) => Cow::Borrowed(text),
                Err(e) => {
                    let valid = e.valid_up_to();
                    let problem = match (e.error_len(), bytes[valid]) {
                        (None, _) => "incomplete UTF-8 octet sequence",
                        (Some(_), 0xC2..=0xF4) => "invalid trailing UTF-8 octet",
                        (Some(_), _) => "invalid leading UTF-8 octet",
                    };
                    // Everything before `valid` is UTF-8, so the lossy copy is exact.
                    let (line, column) =
                        line_column(&String::from_utf8_lossy(&bytes[..valid]), valid);
                    return Err(parse_error(&Location::new(file, line, column), problem));
                }
            }
        }
    };
    if let Some((offset, _)) = text.char_indices().find(|&(_, c)| !printable(c)) {
        let (line, column) = line_column(&text, offset);
        return Err(parse_error(
            &Location::new(file, line, column),
            "control characters are not allowed",
        ));
    }
    Ok(text)
}

/// kubectl's wording for a file its YAML reader cannot read
/// (`StreamVisitor.Visit`: `error parsing %s: %v`, around `sigs.k8s.io/yaml`'s
/// `error converting YAML to JSON: yaml: ...`).
pub(crate) fn parse_error(at: &Location, problem: &str) -> InputError {
    InputError::at(
        at,
        format!(
            "error parsing {}: error converting YAML to JSON: yaml: {problem}",
            at.file
        ),
    )
}

/// The same for a JSON file, which kubectl's JSON decoder reads (`error parsing FILE: ...`).
pub(crate) fn json_parse_error(at: &Location, problem: &str) -> InputError {
    InputError::at(at, format!("error parsing {}: {problem}", at.file))
}

fn utf16(file: &str, bytes: &[u8], unit: fn([u8; 2]) -> u16) -> Result<String, InputError> {
    let units = bytes.chunks(2).map(|pair| match pair {
        [a, b] => unit([*a, *b]),
        _ => 0xD800, // a lone byte at the end: not a whole code unit
    });
    char::decode_utf16(units)
        .collect::<Result<String, _>>()
        .map_err(|_| parse_error(&Location::new(file, 1, 1), "invalid UTF-16 text"))
}

/// The characters YAML allows in a stream (go-yaml's `is_printable`, YAML 1.2 §5.1).
fn printable(c: char) -> bool {
    matches!(c,
        '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_the_yaml_reader_refuses() {
        let cases: &[(&[u8], &str)] = &[
            (
                b"a: 1\nb: \x00\x01",
                "f.yaml:2:4: error parsing f.yaml: error converting YAML to JSON: yaml: control characters are not allowed",
            ),
            (
                b"a: 1\nb: \xFF",
                "f.yaml:2:4: error parsing f.yaml: error converting YAML to JSON: yaml: invalid leading UTF-8 octet",
            ),
            (
                b"a: \xC3\x28",
                "f.yaml:1:4: error parsing f.yaml: error converting YAML to JSON: yaml: invalid trailing UTF-8 octet",
            ),
            (
                b"a: \xE2\x82",
                "f.yaml:1:4: error parsing f.yaml: error converting YAML to JSON: yaml: incomplete UTF-8 octet sequence",
            ),
        ];
        for (bytes, want) in cases {
            assert_eq!(decode("f.yaml", bytes).unwrap_err().to_string(), *want);
        }
    }

    #[test]
    fn reads_utf8_with_bom_and_utf16() {
        assert_eq!(decode("f", b"\xEF\xBB\xBFa: 1").unwrap(), "a: 1");
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("a: é".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(decode("f", &utf16).unwrap(), "a: é");
    }

    #[test]
    fn refuses_large_files() {
        let big = vec![b' '; MAX_INPUT_BYTES + 1];
        assert_eq!(
            decode("big.yaml", &big).unwrap_err().to_string(),
            "big.yaml: error reading big.yaml: the file is 16777217 bytes, larger than the 16 MiB (16777216 bytes) podflow reads"
        );
    }
}
