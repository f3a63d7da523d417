//! Resource quantities (`500m`, `128Mi`, `1.5`), parsed as
//! `k8s.io/apimachinery/pkg/api/resource` parses them (`quantity.go`:
//! `parseQuantityString`, `ParseQuantity`; `suffix.go`) and printed in the
//! canonical form of `Quantity.String()` / `CanonicalizeBytes`.
//!
//! A parsed value is kept exactly, in nano units (`i128`), as upstream rounds
//! every parsed value up to the nano. Values beyond about 10^29 saturate
//! (upstream keeps arbitrary precision there); nothing a manifest reasonably
//! holds comes near.
//!
//! Not mirrored: upstream's `String()` reuses the input text when it is
//! already canonical apart from spelling (`+1`, `1E3`); podflow always prints
//! the canonical spelling (`1`, `1e3`).

use std::cmp::Ordering;
use std::fmt;

/// The regular expression upstream quotes in its format error (`splitREString`).
pub const SPLIT_RE: &str = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";

const NANOS_PER_UNIT: i128 = 1_000_000_000;

/// Why a string is not a quantity, worded as upstream's `ErrFormatWrong`,
/// `ErrNumeric` and `ErrSuffix`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum QuantityError {
    /// `quantities must match the regular expression '…'`
    #[error("quantities must match the regular expression '{SPLIT_RE}'")]
    FormatWrong,
    /// `unable to parse numeric part of quantity`
    #[error("unable to parse numeric part of quantity")]
    Numeric,
    /// `unable to parse quantity's suffix`
    #[error("unable to parse quantity's suffix")]
    Suffix,
}

/// The three formats a quantity remembers from its suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `12e6`
    DecimalExponent,
    /// `12Mi`
    BinarySI,
    /// `12M`
    DecimalSI,
}

/// A parsed quantity: its exact value (in nano units) and its format.
#[derive(Debug, Clone, Copy)]
pub struct ParsedQuantity {
    nanos: i128,
    format: Format,
}

/// The name the brief uses; the same type.
pub type Quantity = ParsedQuantity;

/// Parses `s` as `resource.ParseQuantity` does.
pub fn parse(s: &str) -> Result<ParsedQuantity, QuantityError> {
    ParsedQuantity::parse(s)
}

/// Parses a `k8s-openapi` quantity. Like upstream's `UnmarshalJSON`, leading
/// and trailing white space is trimmed first.
pub fn parse_k8s(
    q: &k8s_openapi::apimachinery::pkg::api::resource::Quantity,
) -> Result<ParsedQuantity, QuantityError> {
    ParsedQuantity::parse(q.0.trim())
}

/// The pieces `parseQuantityString` scans out.
pub(super) struct Scanned<'a> {
    pub(super) positive: bool,
    pub(super) num: &'a str,
    pub(super) denom: &'a str,
    pub(super) suffix: &'a str,
}

fn is_digit(b: u8) -> bool {
    b.is_ascii_digit()
}

/// Upstream's fast scanner: sign, digits, optional `.digits`, then a suffix of
/// `eEinumkKMGTP` letters followed by an optional sign and digits.
pub(super) fn scan(s: &str) -> Result<Scanned<'_>, QuantityError> {
    let b = s.as_bytes();
    let end = b.len();
    let mut pos = 0;
    let mut positive = true;
    match b.first() {
        Some(b'-') => {
            positive = false;
            pos += 1;
        }
        Some(b'+') => pos += 1,
        _ => {}
    }
    while pos < end && b[pos] == b'0' {
        pos += 1;
    }
    if pos >= end {
        return Ok(Scanned {
            positive,
            num: "0",
            denom: "",
            suffix: "",
        });
    }
    let start = pos;
    while pos < end && is_digit(b[pos]) {
        pos += 1;
    }
    let num = if pos == start { "0" } else { &s[start..pos] };
    let mut denom = "";
    if pos < end && b[pos] == b'.' {
        pos += 1;
        let dstart = pos;
        while pos < end && is_digit(b[pos]) {
            pos += 1;
        }
        denom = &s[dstart..pos];
    }
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < end && (b[pos] == b'-' || b[pos] == b'+') {
        pos += 1;
    }
    while pos < end && is_digit(b[pos]) {
        pos += 1;
    }
    if pos < end {
        return Err(QuantityError::FormatWrong);
    }
    Ok(Scanned {
        positive,
        num,
        denom,
        suffix: &s[suffix_start..],
    })
}

/// `suffixer.interpret`: (base, exponent, format).
pub(super) fn interpret(suffix: &str) -> Option<(u32, i64, Format)> {
    let decimal = |e| Some((10, e, Format::DecimalSI));
    let binary = |e| Some((2, e, Format::BinarySI));
    match suffix {
        "" => decimal(0),
        "n" => decimal(-9),
        "u" => decimal(-6),
        "m" => decimal(-3),
        "k" => decimal(3),
        "M" => decimal(6),
        "G" => decimal(9),
        "T" => decimal(12),
        "P" => decimal(15),
        "E" => decimal(18),
        "Ki" => binary(10),
        "Mi" => binary(20),
        "Gi" => binary(30),
        "Ti" => binary(40),
        "Pi" => binary(50),
        "Ei" => binary(60),
        s if s.len() > 1 && (s.starts_with('e') || s.starts_with('E')) => {
            // Go's ParseInt accepts a leading '+'; the exponent must fit ±MaxInt32.
            let e: i64 = s[1..].parse().ok()?;
            (e.abs() <= i64::from(i32::MAX)).then_some((10, e, Format::DecimalExponent))
        }
        _ => None,
    }
}

fn pow10(exp: u32) -> Option<i128> {
    10i128.checked_pow(exp)
}

/// Divides rounding away from zero (for non-negative operands: up).
fn div_ceil(n: i128, d: i128) -> i128 {
    let q = n / d;
    if n % d == 0 { q } else { q + 1 }
}

/// `digits × 10^exp`, in nanos, rounded up to the nano; saturating.
fn decimal_nanos(digits: i128, denom_len: usize, exp: i64) -> i128 {
    let denom_len = i64::try_from(denom_len).unwrap_or(i64::MAX);
    let shift = exp.saturating_sub(denom_len).saturating_add(9);
    if digits == 0 {
        return 0;
    }
    if shift >= 0 {
        u32::try_from(shift)
            .ok()
            .and_then(pow10)
            .and_then(|p| digits.checked_mul(p))
            .unwrap_or(i128::MAX)
    } else {
        match u32::try_from(-shift).ok().and_then(pow10) {
            Some(p) => div_ceil(digits, p),
            None => 1,
        }
    }
}

/// `digits / 10^denom_len × 2^exp`, in nanos, rounded up; saturating.
fn binary_nanos(digits: i128, denom_len: usize, exp: i64) -> i128 {
    if digits == 0 {
        return 0;
    }
    let scaled = digits
        .checked_mul(NANOS_PER_UNIT)
        .and_then(|v| {
            u32::try_from(exp)
                .ok()
                .and_then(|e| v.checked_mul(1i128.checked_shl(e)?))
        })
        .unwrap_or(i128::MAX);
    match u32::try_from(denom_len).ok().and_then(pow10) {
        Some(p) => div_ceil(scaled, p),
        None => 1,
    }
}

impl ParsedQuantity {
    /// Parses `s` as `resource.ParseQuantity` does.
    pub fn parse(s: &str) -> Result<Self, QuantityError> {
        if s.is_empty() {
            return Err(QuantityError::FormatWrong);
        }
        let scanned = scan(s)?;
        let (base, exp, mut format) = interpret(scanned.suffix).ok_or(QuantityError::Suffix)?;
        let mut digits: i128 = 0;
        for c in scanned.num.bytes().chain(scanned.denom.bytes()) {
            digits = digits
                .checked_mul(10)
                .and_then(|d| d.checked_add(i128::from(c - b'0')))
                .unwrap_or(i128::MAX);
        }
        let mut nanos = if base == 10 {
            decimal_nanos(digits, scanned.denom.len(), exp)
        } else {
            binary_nanos(digits, scanned.denom.len(), exp)
        };
        if format == Format::BinarySI {
            // The max is a simple cap (`maxAllowed`, 2^63-1) for binary quantities.
            let max = i128::from(i64::MAX) * NANOS_PER_UNIT;
            nanos = nanos.min(max);
            if nanos > 0 && nanos < NANOS_PER_UNIT {
                format = Format::DecimalSI;
            }
        }
        if !scanned.positive {
            nanos = -nanos;
        }
        Ok(ParsedQuantity { nanos, format })
    }

    /// A quantity from whole units, as `resource.NewQuantity(v, format)`.
    pub fn from_units(value: i64, format: Format) -> Self {
        ParsedQuantity {
            nanos: i128::from(value) * NANOS_PER_UNIT,
            format,
        }
    }

    /// A quantity from thousandths, as `resource.NewMilliQuantity(v, format)`.
    pub fn from_millis(value: i64, format: Format) -> Self {
        ParsedQuantity {
            nanos: i128::from(value) * 1_000_000,
            format,
        }
    }

    /// The format the suffix chose.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The exact value in nano units.
    pub fn nanos(&self) -> i128 {
        self.nanos
    }

    /// `Value()`: whole units, rounded away from zero (`ScaledValue(0)`).
    pub fn value(&self) -> i64 {
        self.scaled(NANOS_PER_UNIT)
    }

    /// `MilliValue()`: thousandths, rounded away from zero.
    pub fn milli_value(&self) -> i64 {
        self.scaled(1_000_000)
    }

    fn scaled(&self, per: i128) -> i64 {
        let magnitude = div_ceil(self.nanos.abs(), per);
        let signed = if self.nanos < 0 {
            -magnitude
        } else {
            magnitude
        };
        i64::try_from(signed).unwrap_or(if signed < 0 { i64::MIN } else { i64::MAX })
    }

    /// Whether the value is below zero.
    pub fn is_negative(&self) -> bool {
        self.nanos < 0
    }

    /// Whether the value is zero.
    pub fn is_zero(&self) -> bool {
        self.nanos == 0
    }

    /// The sum, keeping this quantity's format (as `Add` does).
    #[must_use]
    pub fn add(&self, other: &Self) -> Self {
        let format = if self.is_zero() {
            other.format
        } else {
            self.format
        };
        ParsedQuantity {
            nanos: self.nanos.saturating_add(other.nanos),
            format,
        }
    }

    /// The difference, keeping this quantity's format (as `Sub` does).
    #[must_use]
    pub fn sub(&self, other: &Self) -> Self {
        let format = if self.is_zero() {
            other.format
        } else {
            self.format
        };
        ParsedQuantity {
            nanos: self.nanos.saturating_sub(other.nanos),
            format,
        }
    }

    /// The canonical (number, suffix) pair of `CanonicalizeBytes`.
    fn canonical(&self) -> (String, String) {
        if self.nanos == 0 {
            return ("0".into(), String::new());
        }
        let mut format = self.format;
        if format == Format::BinarySI {
            let bound = 1024 * NANOS_PER_UNIT;
            if self.nanos.abs() < bound || self.nanos % NANOS_PER_UNIT != 0 {
                format = Format::DecimalSI;
            } else {
                let mut amount = self.nanos / NANOS_PER_UNIT;
                let mut exp = 0;
                while amount % 1024 == 0 && exp < 60 {
                    amount /= 1024;
                    exp += 10;
                }
                let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][exp / 10];
                return (amount.to_string(), suffix.to_owned());
            }
        }
        let mut mantissa = self.nanos;
        let mut exp: i64 = -9;
        while mantissa % 10 == 0 {
            mantissa /= 10;
            exp += 1;
        }
        while exp.rem_euclid(3) != 0 {
            mantissa = mantissa.saturating_mul(10);
            exp -= 1;
        }
        let suffix = match (format, exp) {
            (Format::DecimalExponent | Format::DecimalSI, 0) => String::new(),
            (Format::DecimalSI, -9) => "n".into(),
            (Format::DecimalSI, -6) => "u".into(),
            (Format::DecimalSI, -3) => "m".into(),
            (Format::DecimalSI, 3) => "k".into(),
            (Format::DecimalSI, 6) => "M".into(),
            (Format::DecimalSI, 9) => "G".into(),
            (Format::DecimalSI, 12) => "T".into(),
            (Format::DecimalSI, 15) => "P".into(),
            (Format::DecimalSI, 18) => "E".into(),
            // DecimalSI has no suffix past E: newest upstream falls back to exponents.
            _ => format!("e{exp}"),
        };
        (mantissa.to_string(), suffix)
    }
}

impl fmt::Display for ParsedQuantity {
    /// The canonical form, as `Quantity.String()` prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (number, suffix) = self.canonical();
        write!(f, "{number}{suffix}")
    }
}

impl PartialEq for ParsedQuantity {
    /// Compares values, as `Cmp` does; the format does not count.
    fn eq(&self, other: &Self) -> bool {
        self.nanos == other.nanos
    }
}

impl Eq for ParsedQuantity {}

impl PartialOrd for ParsedQuantity {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ParsedQuantity {
    fn cmp(&self, other: &Self) -> Ordering {
        self.nanos.cmp(&other.nanos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `decQuantity(i, exponent, _)` of upstream's tests, in nanos.
    fn dec(i: i128, exponent: i32) -> i128 {
        let shift = exponent + 9;
        if shift >= 0 {
            i * 10i128.pow(shift.unsigned_abs())
        } else {
            i / 10i128.pow(shift.unsigned_abs())
        }
    }

    use Format::{BinarySI as Bin, DecimalExponent as Exp, DecimalSI as Dec};

    /// Mirrors `TestQuantityParse` (`quantity_test.go`), including its negative
    /// and explicit-`+` passes.
    #[test]
    fn parses_as_test_quantity_parse() {
        let gi = 1024_i128 * 1024 * 1024;
        let table: &[(&str, i128, Format)] = &[
            ("0", 0, Dec),
            ("0n", 0, Dec),
            ("0Ki", 0, Bin),
            ("0Mi", 0, Bin),
            ("1", dec(1, 0), Dec),
            ("1Ki", dec(1024, 0), Bin),
            ("7Mi", dec(7 * 1024 * 1024, 0), Bin),
            ("6Gi", dec(6 * gi, 0), Bin),
            ("5Ti", dec(5 * gi * 1024, 0), Bin),
            ("3Ei", dec(3 * gi * gi, 0), Bin),
            ("5n", dec(5, -9), Dec),
            ("4u", dec(4, -6), Dec),
            ("3m", dec(3, -3), Dec),
            ("50k", dec(5, 4), Dec),
            ("300T", dec(3, 14), Dec),
            ("1E", dec(1, 18), Dec),
            ("1E-3", dec(1, -3), Exp),
            ("1e3", dec(1, 3), Exp),
            ("1E18", dec(1, 18), Exp),
            ("100.035k", dec(100_035, 0), Dec),
            ("0.0005k", dec(5, -1), Dec),
            ("0.5e-2", dec(5, -3), Exp),
            ("1.3E+6", dec(13, 5), Exp),
            ("6.987654321G", dec(6_987_654_321, 0), Dec),
            ("1.01E", dec(101, 16), Dec),
            ("3.001n", dec(4, -9), Dec),
            ("1.1E-9", dec(2, -9), Exp),
            ("0.0000000001", dec(1, -9), Dec),
            ("0.00000012345", dec(124, -9), Dec),
            ("9Ei", i128::from(i64::MAX) * NANOS_PER_UNIT, Bin),
            (
                "9223372036854775807Ki",
                i128::from(i64::MAX) * NANOS_PER_UNIT,
                Bin,
            ),
            ("12E", dec(12, 18), Dec),
            ("100.035Ki", dec(10_243_584, -2), Bin),
            ("0.5Mi", dec(512 * 1024, 0), Bin),
            ("0.025Ti", dec(274_877_906_944, -1), Bin),
            ("0.000000000001Ki", dec(2, -9), Dec),
            (".001", dec(1, -3), Dec),
            ("1.", dec(1, 0), Dec),
            ("1.G", dec(1, 9), Dec),
        ];
        for &(input, nanos, format) in table {
            let got = parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!((got.nanos(), got.format()), (nanos, format), "{input}");
            let neg = parse(&format!("-{input}")).unwrap();
            assert_eq!((neg.nanos(), neg.format()), (-nanos, format), "-{input}");
            let plus = parse(&format!("+{input}")).unwrap();
            assert_eq!(plus.nanos(), nanos, "+{input}");
        }
    }

    /// The `invalid` list of `TestQuantityParse`, with upstream's error words.
    #[test]
    fn rejects_as_test_quantity_parse() {
        let table: &[(&str, QuantityError)] = &[
            ("", QuantityError::FormatWrong),
            ("1.1.M", QuantityError::FormatWrong),
            ("1+1.0M", QuantityError::FormatWrong),
            ("0.1mi", QuantityError::Suffix),
            ("0.1am", QuantityError::FormatWrong),
            ("aoeu", QuantityError::FormatWrong),
            (".5i", QuantityError::Suffix),
            ("1i", QuantityError::Suffix),
            ("-3.01i", QuantityError::Suffix),
            ("-3.01e-", QuantityError::Suffix),
            ("1e4294967297", QuantityError::Suffix),
            (" 1", QuantityError::FormatWrong),
            ("1 ", QuantityError::FormatWrong),
            ("2x", QuantityError::FormatWrong),
            ("32MMi", QuantityError::Suffix),
        ];
        for &(input, want) in table {
            assert_eq!(parse(input).unwrap_err(), want, "{input:?}");
        }
        assert_eq!(
            QuantityError::FormatWrong.to_string(),
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        );
        assert_eq!(
            QuantityError::Suffix.to_string(),
            "unable to parse quantity's suffix"
        );
    }

    /// Mirrors `TestQuantityParseEmit` and the alternates of `TestQuantityString`.
    #[test]
    fn canonical_strings_as_upstream() {
        let table = [
            ("1Ki", "1Ki"),
            ("1024Mi", "1Gi"),
            ("1000M", "1G"),
            (".001Ki", "1024m"),
            (".000001Ki", "1024u"),
            (".000000001Ki", "1024n"),
            (".000000000001Ki", "2n"),
            ("307200Ki", "300Mi"),
            ("1025024Mi", "1001Gi"),
            ("5000m", "5"),
            ("0.5", "500m"),
            ("1000m", "1"),
            ("1.5Gi", "1536Mi"),
            ("1.5", "1500m"),
            ("0.001T", "1G"),
            ("1000u", "1m"),
            ("1.08", "1080m"),
            ("1080000000n", "1080m"),
            ("1000E", "1e21"),
            ("5000E", "5e21"),
            (".001e12", "1e9"),
            ("0.001e0", "1e-3"),
            ("1000e-12", "1e-9"),
            ("80e-3", "80e-3"),
            ("1e3", "1e3"),
            ("00", "0"),
            ("2000Ki", "2000Ki"),
            ("1025", "1025"),
            ("100m", "100m"),
            ("128974848", "128974848"),
            ("129e6", "129e6"),
            ("129M", "129M"),
            ("123Mi", "123Mi"),
        ];
        for (input, want) in table {
            assert_eq!(parse(input).unwrap().to_string(), want, "{input}");
            if want != "0" {
                assert_eq!(
                    parse(&format!("-{input}")).unwrap().to_string(),
                    format!("-{want}")
                );
            }
        }
    }

    /// `Value()` and `MilliValue()` round away from zero (`TestQuantityRoundUp`,
    /// `TestScaledValue`).
    #[test]
    fn value_and_milli_value_round_up() {
        let table = [
            ("1", 1, 1000),
            ("1.5", 2, 1500),
            ("100m", 1, 100),
            ("0.1m", 1, 1),
            ("1n", 1, 1),
            ("-9.01", -10, -9010),
            ("128Mi", 134_217_728, 134_217_728_000),
            ("1e3", 1000, 1_000_000),
        ];
        for (input, value, milli) in table {
            let q = parse(input).unwrap();
            assert_eq!((q.value(), q.milli_value()), (value, milli), "{input}");
        }
        assert!(parse("-1").unwrap().is_negative());
        assert!(parse("1").unwrap() > parse("999m").unwrap());
        assert_eq!(parse("1Gi").unwrap(), parse("1073741824").unwrap());
        let k8s = k8s_openapi::apimachinery::pkg::api::resource::Quantity(" 250m ".into());
        assert_eq!(parse_k8s(&k8s).unwrap().milli_value(), 250);
        let sum = parse("250m").unwrap().add(&parse("1").unwrap());
        assert_eq!(sum.to_string(), "1250m");
        assert_eq!(
            ParsedQuantity::from_units(4, Format::DecimalSI).to_string(),
            "4"
        );
        assert_eq!(
            ParsedQuantity::from_millis(500, Format::DecimalSI).to_string(),
            "500m"
        );
    }
}
