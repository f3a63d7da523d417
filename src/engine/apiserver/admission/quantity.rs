//! A small resource-quantity reader for `LimitRanger` and `ResourceQuota`, as
//! `k8s.io/apimachinery/pkg/api/resource/quantity.go` parses and prints
//! quantities (`500m`, `128Mi`, `1.5`, `2k`). Kept private here until the shared
//! `crate::model::quantity` lands.

use std::cmp::Ordering;
use std::fmt;

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

/// How a quantity prints: with decimal (`k`, `M`) or binary (`Ki`, `Mi`) suffixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    DecimalSi,
    BinarySi,
}

/// A quantity as thousandths of its unit (its `MilliValue()`), and its format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Amount {
    pub milli: i128,
    pub format: Format,
}

impl Amount {
    /// Zero, printed as decimal.
    pub const ZERO: Amount = Amount {
        milli: 0,
        format: Format::DecimalSi,
    };

    /// Reads `text`; `None` when it is not a quantity.
    pub fn parse(text: &str) -> Option<Amount> {
        let text = text.trim();
        let (sign, rest) = match text.strip_prefix('-') {
            Some(r) => (-1, r),
            None => (1, text.strip_prefix('+').unwrap_or(text)),
        };
        let number_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, suffix) = rest.split_at(number_end);
        if number.is_empty() || number == "." {
            return None;
        }
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        if fraction.contains('.') {
            return None;
        }
        // Scale: the multiplier of the suffix, as a power of ten or of two.
        let (numerator, denominator, format): (i128, i128, Format) = match suffix {
            "" => (1, 1, Format::DecimalSi),
            "m" => (1, 1000, Format::DecimalSi),
            "k" => (1_000, 1, Format::DecimalSi),
            "M" => (1_000_000, 1, Format::DecimalSi),
            "G" => (1_000_000_000, 1, Format::DecimalSi),
            "T" => (1_000_000_000_000, 1, Format::DecimalSi),
            "P" => (1_000_000_000_000_000, 1, Format::DecimalSi),
            "E" => (1_000_000_000_000_000_000, 1, Format::DecimalSi),
            "Ki" => (1 << 10, 1, Format::BinarySi),
            "Mi" => (1 << 20, 1, Format::BinarySi),
            "Gi" => (1 << 30, 1, Format::BinarySi),
            "Ti" => (1 << 40, 1, Format::BinarySi),
            "Pi" => (1 << 50, 1, Format::BinarySi),
            "Ei" => (1 << 60, 1, Format::BinarySi),
            exp => {
                let power: u32 = exp.strip_prefix(['e', 'E'])?.parse().ok()?;
                (10_i128.checked_pow(power)?, 1, Format::DecimalSi)
            }
        };
        let digits: i128 = format!("{whole}{fraction}").parse().ok()?;
        let fraction_scale = 10_i128.checked_pow(u32::try_from(fraction.len()).ok()?)?;
        // milli = digits / fraction_scale * numerator / denominator * 1000, rounded up.
        let top = digits.checked_mul(numerator)?.checked_mul(1000)?;
        let bottom = fraction_scale.checked_mul(denominator)?;
        let milli = (top + bottom - 1) / bottom;
        Some(Amount {
            milli: sign * milli,
            format,
        })
    }

    /// Reads a `k8s-openapi` quantity; an unreadable one counts as zero.
    pub fn of(quantity: &Quantity) -> Amount {
        Amount::parse(&quantity.0).unwrap_or(Amount::ZERO)
    }

    /// The sum, in this quantity's format (`Quantity.Add`).
    #[must_use]
    pub fn plus(self, other: Amount) -> Amount {
        Amount {
            milli: self.milli + other.milli,
            format: self.format,
        }
    }

    /// As a `k8s-openapi` quantity, in canonical form.
    pub fn to_quantity(self) -> Quantity {
        Quantity(self.to_string())
    }
}

impl PartialOrd for Amount {
    fn partial_cmp(&self, other: &Amount) -> Option<Ordering> {
        Some(self.milli.cmp(&other.milli))
    }
}

impl fmt::Display for Amount {
    /// `Quantity.String()`: the canonical form (`2`, `1500m`, `128Mi`, `1536Mi`, `1k`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let milli = self.milli;
        let whole = milli % 1000 == 0;
        if self.format == Format::BinarySi && whole && milli.abs() >= 1024 * 1000 {
            let mut value = milli / 1000;
            let mut suffix = 0;
            while suffix < 6 && value % 1024 == 0 {
                value /= 1024;
                suffix += 1;
            }
            let name = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][suffix];
            return write!(f, "{value}{name}");
        }
        if milli == 0 {
            return f.write_str("0");
        }
        if !whole {
            return write!(f, "{milli}m");
        }
        let mut value = milli / 1000;
        let mut suffix = 0;
        while suffix < 6 && value % 1000 == 0 {
            value /= 1000;
            suffix += 1;
        }
        let name = ["", "k", "M", "G", "T", "P", "E"][suffix];
        write!(f, "{value}{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mirrors `quantity_test.go` `TestQuantityParse` / `TestQuantityString` on the forms podflow uses.
    #[test]
    fn parses_and_prints_canonically() {
        for (input, milli, canonical) in [
            ("500m", 500, "500m"),
            ("2", 2000, "2"),
            ("2000m", 2000, "2"),
            ("1.5", 1500, "1500m"),
            ("0.5", 500, "500m"),
            ("128Mi", 134_217_728_000, "128Mi"),
            ("1.5Gi", 1_610_612_736_000, "1536Mi"),
            ("1Gi", 1_073_741_824_000, "1Gi"),
            ("2k", 2_000_000, "2k"),
            ("1M", 1_000_000_000, "1M"),
            ("1e3", 1_000_000, "1k"),
            ("0", 0, "0"),
            ("100Ki", 102_400_000, "100Ki"),
        ] {
            let amount = Amount::parse(input).unwrap();
            assert_eq!(amount.milli, milli, "{input}");
            assert_eq!(amount.to_string(), canonical, "{input}");
        }
        for bad in ["", "x", "1.2.3", "1Qi", "."] {
            assert_eq!(Amount::parse(bad), None, "{bad}");
        }
        let sum = Amount::parse("1")
            .unwrap()
            .plus(Amount::parse("500m").unwrap());
        assert_eq!(sum.to_string(), "1500m");
        let bytes = Amount::parse("0")
            .unwrap()
            .plus(Amount::parse("128Mi").unwrap());
        assert_eq!(bytes.to_string(), "134217728");
    }
}
