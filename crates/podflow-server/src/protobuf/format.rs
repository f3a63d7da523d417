//! Text forms Go gives to time values in JSON: RFC 3339 timestamps in UTC
//! (`metav1.Time` to the second, `metav1.MicroTime` to the microsecond) and
//! `time.Duration`'s `String` (`1h2m3.5s`, `1m0s`, `250ms`).

/// `seconds` since the Unix epoch as `2006-01-02T15:04:05Z`, with
/// `.000000` microseconds when `micros` is given. Years outside 0..=9999
/// have no RFC 3339 form and are refused.
pub(super) fn rfc3339(seconds: i64, micros: Option<u32>) -> Result<String, String> {
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    if !(0..=9999).contains(&year) {
        return Err(format!(
            "the time {seconds}s after the Unix epoch falls in the year {year}, outside 0..=9999"
        ));
    }
    let (hour, minute, second) = (of_day / 3600, of_day / 60 % 60, of_day % 60);
    let fraction = micros.map_or_else(String::new, |m| format!(".{m:06}"));
    Ok(format!(
        "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}{fraction}Z"
    ))
}

/// The proleptic Gregorian date `days` after 1970-01-01: the era-based
/// conversion of Howard Hinnant's "chrono-compatible low-level date
/// algorithms", with March as the first month of the computational year.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Go's `time.Duration.String` of `nanos` nanoseconds: `0s`, `750ns`,
/// `1.5µs`, `250ms`, `3.25s`, `1m0s`, `2h0m5s`, with a leading `-` when
/// negative.
pub(super) fn go_duration(nanos: i64) -> String {
    const SECOND: u64 = 1_000_000_000;
    let sign = if nanos < 0 { "-" } else { "" };
    let size = nanos.unsigned_abs();
    let text = if size == 0 {
        "0s".to_string()
    } else if size < 1_000 {
        format!("{size}ns")
    } else if size < 1_000_000 {
        format!("{}µs", decimal(size, 3))
    } else if size < SECOND {
        format!("{}ms", decimal(size, 6))
    } else {
        let seconds = decimal(size % (60 * SECOND), 9);
        let minutes = size / (60 * SECOND) % 60;
        let hours = size / (3600 * SECOND);
        if hours > 0 {
            format!("{hours}h{minutes}m{seconds}s")
        } else if minutes > 0 {
            format!("{minutes}m{seconds}s")
        } else {
            format!("{seconds}s")
        }
    };
    format!("{sign}{text}")
}

/// `value` divided by 10^`digits`, its fraction without trailing zeros.
fn decimal(value: u64, digits: u32) -> String {
    let unit = 10u64.pow(digits);
    let (whole, fraction) = (value / unit, value % unit);
    if fraction == 0 {
        return whole.to_string();
    }
    let width = digits as usize;
    let fraction = format!("{fraction:0width$}");
    format!("{whole}.{}", fraction.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::{go_duration, rfc3339};

    #[test]
    fn timestamps_are_rfc3339_in_utc() {
        assert_eq!(rfc3339(0, None).unwrap(), "1970-01-01T00:00:00Z");
        assert_eq!(
            rfc3339(1_767_323_045, None).unwrap(),
            "2026-01-02T03:04:05Z"
        );
        assert_eq!(rfc3339(951_782_400, None).unwrap(), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(-1, None).unwrap(), "1969-12-31T23:59:59Z");
        assert_eq!(
            rfc3339(1_767_323_045, Some(7)).unwrap(),
            "2026-01-02T03:04:05.000007Z"
        );
        assert_eq!(
            rfc3339(253_402_300_799, None).unwrap(),
            "9999-12-31T23:59:59Z"
        );
        assert!(rfc3339(253_402_300_800, None).is_err());
        assert_eq!(
            rfc3339(-62_135_596_800, None).unwrap(),
            "0001-01-01T00:00:00Z"
        );
    }

    #[test]
    fn durations_read_as_go_writes_them() {
        let second = 1_000_000_000;
        assert_eq!(go_duration(0), "0s");
        assert_eq!(go_duration(750), "750ns");
        assert_eq!(go_duration(1_500), "1.5µs");
        assert_eq!(go_duration(250_000_000), "250ms");
        assert_eq!(go_duration(3_250_000_000), "3.25s");
        assert_eq!(go_duration(60 * second), "1m0s");
        assert_eq!(go_duration(3_600 * second + 5 * second), "1h0m5s");
        assert_eq!(go_duration(-90 * second), "-1m30s");
        assert_eq!(go_duration(i64::MIN), "-2562047h47m16.854775808s");
    }
}
