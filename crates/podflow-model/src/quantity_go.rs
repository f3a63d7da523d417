//! The Go value behind a quantity, as a controller holds it: the
//! `int64Amount` (value and scale), the cached string and the format that
//! `resource.ParseQuantity` leaves in a `Quantity`
//! (`staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go`).
//!
//! The pod-template-hash dumps these private fields, so they decide the hash.
//! A controller reads objects the API server stored: the stored text is the
//! user's own when `ParseQuantity` kept it (its "canonical form, reuse the
//! string" branch), and `String()`'s canonical spelling otherwise; the
//! controller then parses that text again.

use super::quantity::{Format, ParsedQuantity, interpret, scan};

/// What `ParseQuantity`'s int64 fast path builds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoQuantity {
    /// `i.value`.
    pub value: i64,
    /// `i.scale`, a power of ten.
    pub scale: i32,
    /// `s`: the text, when upstream keeps it; empty otherwise.
    pub cached: String,
    /// `Format`.
    pub format: Format,
}

/// `maxInt64Factors`: the decimal digits an int64 always holds.
const MAX_INT64_FACTORS: i32 = 18;

/// `ParseQuantity(s)` when it takes the int64 fast path; `None` where
/// upstream falls back to an `inf.Dec` (or `s` is no quantity).
pub fn parse_go(s: &str) -> Option<GoQuantity> {
    if s == "0" {
        return Some(GoQuantity {
            value: 0,
            scale: 0,
            cached: s.to_owned(),
            format: Format::DecimalSI,
        });
    }
    let scanned = scan(s).ok()?;
    let (_, exponent, format) = interpret(scanned.suffix)?;
    let exponent = i32::try_from(exponent).ok()?;
    let digits = i32::try_from(scanned.num.len() + scanned.denom.len()).ok()?;
    let (mut scale, precision, mantissa) = match format {
        Format::DecimalExponent | Format::DecimalSI => {
            (exponent, MAX_INT64_FACTORS - digits, 1_i64)
        }
        Format::BinarySI if exponent >= 0 && scanned.denom.is_empty() => {
            // `15 - len(num) - int32(float32(exponent)*3/10) - 1`
            let num_len = i32::try_from(scanned.num.len()).ok()?;
            #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
            let decimal_digits = (exponent as f32 * 3.0 / 10.0) as i32;
            (
                0,
                15 - num_len - decimal_digits - 1,
                1_i64.checked_shl(exponent.unsigned_abs())?,
            )
        }
        Format::BinarySI => return None,
    };
    if precision < 0 {
        return None;
    }
    scale -= i32::try_from(scanned.denom.len()).ok()?;
    if scale < -9 {
        return None;
    }
    let shifted = format!("{}{}", scanned.num, scanned.denom);
    let value: i64 = shifted.parse().ok()?;
    let magnitude = value.checked_mul(mantissa)?;
    let keeps_text = match format {
        Format::BinarySI => exponent % 10 == 0 && value & 0x07 != 0,
        _ => scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0'),
    };
    Some(GoQuantity {
        value: if scanned.positive {
            magnitude
        } else {
            -magnitude
        },
        scale,
        cached: if keeps_text {
            s.to_owned()
        } else {
            String::new()
        },
        format,
    })
}

/// The quantity a controller decodes for the user's text `s`: the stored
/// text (kept, or canonical), parsed again. `None` for values the fast path
/// does not hold, and for values finer than a thousandth, which the API
/// server rounds up (`SetDefaults_ResourceList`, `RoundUp(milliScale)`).
pub fn as_controller_reads(s: &str) -> Option<GoQuantity> {
    let text = s.trim();
    let parsed = ParsedQuantity::parse(text).ok()?;
    if parsed.nanos() % 1_000_000 != 0 {
        return None;
    }
    let stored = match parse_go(text) {
        Some(q) if !q.cached.is_empty() => text.to_owned(),
        _ => parsed.to_string(),
    };
    parse_go(&stored)
}

/// The name Go gives a format (`resource.Format`'s string values).
pub fn format_name(format: Format) -> &'static str {
    match format {
        Format::DecimalExponent => "DecimalExponent",
        Format::BinarySI => "BinarySI",
        Format::DecimalSI => "DecimalSI",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(value: i64, scale: i32, cached: &str, format: Format) -> GoQuantity {
        GoQuantity {
            value,
            scale,
            cached: cached.to_owned(),
            format,
        }
    }

    #[test]
    fn the_fast_path_keeps_canonical_text_only() {
        use Format::{BinarySI, DecimalExponent, DecimalSI};
        // Worked through `ParseQuantity` by hand: value × 10^scale (or × 2^exp).
        let table = [
            ("0", Some(go(0, 0, "0", DecimalSI))),
            ("100m", Some(go(100, -3, "100m", DecimalSI))),
            ("1", Some(go(1, 0, "1", DecimalSI))),
            ("250m", Some(go(250, -3, "250m", DecimalSI))),
            ("1000m", Some(go(1000, -3, "", DecimalSI))),
            ("0.5", Some(go(5, -1, "", DecimalSI))),
            ("1.5", Some(go(15, -1, "", DecimalSI))),
            ("1Gi", Some(go(1 << 30, 0, "1Gi", BinarySI))),
            ("128Mi", Some(go(128 << 20, 0, "", BinarySI))),
            ("129Mi", Some(go(129 << 20, 0, "129Mi", BinarySI))),
            ("64Ki", Some(go(64 << 10, 0, "", BinarySI))),
            ("1e3", Some(go(1, 3, "1e3", DecimalExponent))),
            ("-5", Some(go(-5, 0, "-5", DecimalSI))),
            ("1.5Gi", None),
            ("1n", Some(go(1, -9, "1n", DecimalSI))),
            ("1p", None),
        ];
        for (text, want) in table {
            assert_eq!(parse_go(text), want, "{text}");
        }
    }

    #[test]
    fn a_controller_reads_the_stored_spelling() {
        use Format::{BinarySI, DecimalSI};
        let table = [
            ("100m", Some(go(100, -3, "100m", DecimalSI))),
            ("0.5", Some(go(500, -3, "500m", DecimalSI))),
            ("1000m", Some(go(1, 0, "1", DecimalSI))),
            (" 1Gi ", Some(go(1 << 30, 0, "1Gi", BinarySI))),
            ("128Mi", Some(go(128 << 20, 0, "", BinarySI))),
            ("1024Mi", Some(go(1 << 30, 0, "1Gi", BinarySI))),
            ("1u", None),
        ];
        for (text, want) in table {
            assert_eq!(as_controller_reads(text), want, "{text}");
        }
    }
}
