//! Simulated time: milliseconds since the simulation started. The engine never
//! reads a wall clock; whoever drives it decides how fast this runs.

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};

/// A moment of simulated time, in milliseconds since the start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// The wall-clock moment the simulation pretends to start at (2026-11-30T02:20:30Z),
/// used for timestamps in objects and log lines, so that they read naturally.
pub const EPOCH_UNIX_SECONDS: i64 = 1_796_005_230;

/// The start in use: [`EPOCH_UNIX_SECONDS`], unless a cluster served to real
/// clients starts at the wall clock's now ([`start_at_unix`]).
static EPOCH: AtomicI64 = AtomicI64::new(EPOCH_UNIX_SECONDS);

/// Makes simulated time start at `seconds` since the Unix epoch, for the
/// whole process. `podflow serve` calls it once before building its engine,
/// so that the ages real clients compute from timestamps (`kubectl
/// describe`'s events) are true; the stories never call it, so their bytes
/// stay the same.
pub fn start_at_unix(seconds: i64) {
    EPOCH.store(seconds, Ordering::Relaxed);
}

impl SimTime {
    /// Zero: the start.
    pub const ZERO: SimTime = SimTime(0);

    /// Milliseconds since the start.
    pub fn as_millis(self) -> u64 {
        self.0
    }

    /// This moment plus `ms` milliseconds.
    #[must_use]
    pub fn plus(self, ms: u64) -> SimTime {
        SimTime(self.0 + ms)
    }

    /// Seconds and nanoseconds since the Unix epoch for this moment.
    pub fn unix(self) -> (i64, u32) {
        let secs =
            EPOCH.load(Ordering::Relaxed) + i64::try_from(self.0 / 1000).unwrap_or(i64::MAX / 2);
        (
            secs,
            u32::try_from((self.0 % 1000) * 1_000_000).unwrap_or(0),
        )
    }

    /// The moment as a civil UTC date and time.
    pub fn civil(self) -> Civil {
        let (secs, nanos) = self.unix();
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        Civil {
            year,
            month,
            day,
            hour: u32::try_from(rem / 3600).unwrap_or(0),
            minute: u32::try_from(rem % 3600 / 60).unwrap_or(0),
            second: u32::try_from(rem % 60).unwrap_or(0),
            micros: nanos / 1000,
        }
    }

    /// RFC 3339 at second precision, as `metav1.Time` serializes: `2026-11-30T02:20:30Z`.
    pub fn rfc3339(self) -> String {
        let c = self.civil();
        let Ok(year @ 0..=9999) = u32::try_from(c.year) else {
            return format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
                c.year, c.month, c.day, c.hour, c.minute, c.second
            );
        };
        // Made digit by digit: every status and event carries such stamps,
        // and `format!`'s padding machinery cost more than the rest.
        padded(&[
            (year, 4, "-"),
            (c.month, 2, "-"),
            (c.day, 2, "T"),
            (c.hour, 2, ":"),
            (c.minute, 2, ":"),
            (c.second, 2, "Z"),
        ])
    }

    /// The klog header's time: `I1130 02:20:36.000000`'s `1130 02:20:36.000000`.
    pub fn klog(self) -> String {
        let c = self.civil();
        padded(&[
            (c.month, 2, ""),
            (c.day, 2, " "),
            (c.hour, 2, ":"),
            (c.minute, 2, ":"),
            (c.second, 2, "."),
            (c.micros, 6, ""),
        ])
    }

    /// As a `k8s-openapi` timestamp, to the millisecond (a `MicroTime`'s:
    /// a Lease's `renewTime`).
    pub fn to_k8s(self) -> k8s_openapi::jiff::Timestamp {
        let (secs, nanos) = self.unix();
        k8s_openapi::jiff::Timestamp::new(secs, i32::try_from(nanos).unwrap_or(0))
            .unwrap_or(k8s_openapi::jiff::Timestamp::UNIX_EPOCH)
    }

    /// As a stored `metav1.Time` holds it: the whole second. Both of its
    /// encodings drop the fraction (its JSON is RFC 3339 in seconds; its
    /// protobuf writes and reads no nanoseconds:
    /// `staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/time_proto.go`),
    /// so what a controller reads back from etcd is at the second.
    pub fn to_time(self) -> k8s_openapi::apimachinery::pkg::apis::meta::v1::Time {
        let (secs, _) = self.unix();
        k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
            k8s_openapi::jiff::Timestamp::from_second(secs)
                .unwrap_or(k8s_openapi::jiff::Timestamp::UNIX_EPOCH),
        )
    }
}

/// Each (value, width, separator) as its last `width` decimal digits,
/// zero-padded (`{value:0width$}` for a value that fits), then the separator.
pub fn padded(fields: &[(u32, u32, &str)]) -> String {
    let mut text = String::with_capacity(24);
    for &(value, width, separator) in fields {
        for place in (0..width).rev() {
            let digit = value / 10u32.pow(place) % 10;
            text.push(char::from_digit(digit, 10).unwrap_or('0'));
        }
        text.push_str(separator);
    }
    text
}

/// A UTC calendar date and time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub micros: u32,
}

/// Howard Hinnant's days-to-civil algorithm.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let month = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

impl fmt::Display for SimTime {
    /// `mm:ss.mmm`, as the text trace shows time.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0 % 1000;
        let s = self.0 / 1000 % 60;
        let m = self.0 / 60_000;
        write!(f, "{m:02}:{s:02}.{ms:03}")
    }
}

/// Parses a duration as kubectl and Go spell it (`500ms`, `30s`, `10m`, `1h30m`) into milliseconds.
pub fn parse_duration(text: &str) -> Option<u64> {
    let mut total: u64 = 0;
    let mut rest = text.trim();
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if digits == 0 {
            return None;
        }
        let number: u64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let factor = match &rest[..unit_len] {
            "ms" => 1,
            "s" => 1000,
            "m" => 60_000,
            "h" => 3_600_000,
            _ => return None,
        };
        total = total.checked_add(number.checked_mul(factor)?)?;
        rest = &rest[unit_len..];
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_read_as_kubernetes_writes_them() {
        assert_eq!(SimTime::ZERO.rfc3339(), "2026-11-30T02:20:30Z");
        assert_eq!(SimTime(6_000).klog(), "1130 02:20:36.000000");
        assert_eq!(SimTime(61_250).to_string(), "01:01.250");
    }

    #[test]
    fn stamps_made_digit_by_digit_are_the_padded_formats() {
        // Every 2 h 9 min 37.777 s over 15 months: month ends, midnights, odd milliseconds.
        for at in (0..40_000_000_000_u64).step_by(7_777_777) {
            let t = SimTime(at + at % 1000);
            let c = t.civil();
            assert_eq!(
                t.rfc3339(),
                format!(
                    "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
                    c.year, c.month, c.day, c.hour, c.minute, c.second
                )
            );
            assert_eq!(
                t.klog(),
                format!(
                    "{:02}{:02} {:02}:{:02}:{:02}.{:06}",
                    c.month, c.day, c.hour, c.minute, c.second, c.micros
                )
            );
        }
    }

    #[test]
    fn durations_parse_as_go_spells_them() {
        assert_eq!(parse_duration("500ms"), Some(500));
        assert_eq!(parse_duration("10m"), Some(600_000));
        assert_eq!(parse_duration("1h30m"), Some(5_400_000));
        assert_eq!(parse_duration("10"), None);
        assert_eq!(parse_duration("x"), None);
        assert_eq!(parse_duration(""), None);
    }
}
