//! Time stamps: the one type ([`Timestamp`], milliseconds of log time in
//! the log's own zone) and the one reader of the forms logs and their
//! envelopes write them in. Every form starts with the same
//! `yyyy-MM-dd?HH:mm:ss` (`?`: a blank or `T`), read by [`civil`]:
//!
//! * log4j's `%d`, `yyyy-MM-dd HH:mm:ss,SSS` ([`log4j`]), on every record
//!   line: the hot path, which reads a line of the minute before only by
//!   its seconds;
//! * RFC 3339 and ISO 8601 with a fraction of any length and a zone
//!   ([`iso_nanos`]), as container runtimes and log stores write them;
//! * the report's own ISO form, read back ([`Timestamp::parse_iso`]).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// The digits `b[from..from + n]` as a number; `None` when `b` is shorter
/// or one of them is no digit.
fn digits(b: &[u8], from: usize, n: usize) -> Option<u32> {
    b.get(from..from + n)?.iter().try_fold(0u32, |a, &d| {
        d.is_ascii_digit().then(|| a * 10 + u32::from(d - b'0'))
    })
}

/// `-MM-dd?HH:mm:ss` (`?`: a blank or `T`) at the start of `b`: month,
/// day, hour, minute and second, their ranges not checked; `None` when `b`
/// does not start with that shape.
fn after_year(b: &[u8]) -> Option<[u32; 5]> {
    if b.len() < 15
        || b[0] != b'-'
        || b[3] != b'-'
        || !(b[6] == b' ' || b[6] == b'T')
        || b[9] != b':'
        || b[12] != b':'
    {
        return None;
    }
    Some([
        digits(b, 1, 2)?,
        digits(b, 4, 2)?,
        digits(b, 7, 2)?,
        digits(b, 10, 2)?,
        digits(b, 13, 2)?,
    ])
}

/// `yyyy-MM-dd?HH:mm:ss` (`?`: a blank or `T`) at the start of `b`: year,
/// then month, day, hour, minute and second, their ranges not checked;
/// `None` when `b` does not start with that shape.
pub fn civil(b: &[u8]) -> Option<(i64, [u32; 5])> {
    let year = digits(b, 0, 4)?;
    Some((i64::from(year), after_year(b.get(4..)?)?))
}

/// The whole `yyyy-MM-dd HH:mm:ss,SSS` of `b`: `None` when it is not one,
/// `Some(None)` when its fields are out of range.
fn log4j_in_full(b: &[u8]) -> Option<Option<Timestamp>> {
    let (year, [month, day, hour, min, sec]) = civil(b)?;
    if !matches!(b.get(19), Some(b',' | b'.')) {
        return None;
    }
    let milli = digits(b, 20, 3)?;
    Some(Timestamp::from_parts(
        year, month, day, hour, min, sec, milli,
    ))
}

/// log4j's `%d`: `yyyy-MM-dd HH:mm:ss,SSS` (also `T` and `.` as
/// separators), then any sub-millisecond digits, at the start of `b`: the
/// time stamp (`None` when its fields are out of range) and the bytes it
/// takes; `None` when `b` does not start with one. Read byte by byte at
/// fixed places: every record line starts with one.
///
/// The lines of a log come minute by minute: the last minute read (its
/// first 16 bytes, `yyyy-MM-dd HH:mm`, and the time it starts at) is kept
/// per thread, and a line of the same minute reads only its seconds and
/// milliseconds.
#[inline]
pub fn log4j(b: &[u8]) -> Option<(Option<Timestamp>, usize)> {
    let minute = <[u8; 16]>::try_from(b.get(..16)?).ok()?;
    if b.len() < 23 {
        return None;
    }
    let key = u128::from_le_bytes(minute);
    let digit = |k: usize| b[k].is_ascii_digit();
    let tail = b[16] == b':'
        && digit(17)
        && digit(18)
        && (b[19] == b',' || b[19] == b'.')
        && digit(20)
        && digit(21)
        && digit(22);
    let last = LAST_MINUTE.get();
    let ts = if let Some((_, base)) = last.filter(|&(k, _)| tail && k == key) {
        let d = |k: usize| i64::from(b[k] - b'0');
        let sec = d(17) * 10 + d(18);
        let ms = d(20) * 100 + d(21) * 10 + d(22);
        (sec <= 60).then_some(Timestamp(base + sec * 1000 + ms))
    } else {
        let ts = log4j_in_full(b)?;
        if let Some(Timestamp(t)) = ts {
            // The minute starts at the time less its seconds and milliseconds.
            let into = i64::from(b[17] - b'0') * 10_000
                + i64::from(b[18] - b'0') * 1000
                + i64::from(b[20] - b'0') * 100
                + i64::from(b[21] - b'0') * 10
                + i64::from(b[22] - b'0');
            LAST_MINUTE.set(Some((key, t - into)));
        }
        ts
    };
    let more = b[23..].iter().take_while(|c| c.is_ascii_digit()).count();
    Some((ts, 23 + more))
}

thread_local! {
    /// [`log4j`]'s last minute read in full: its 16 bytes (little-endian)
    /// and the time it starts at.
    static LAST_MINUTE: std::cell::Cell<Option<(u128, i64)>> = const { std::cell::Cell::new(None) };
}

/// An ISO 8601 / RFC 3339 time stamp (`T` or a blank between date and
/// time, a fraction of any length after `.` or `,`, a zone `Z`, `±hh:mm`,
/// `±hhmm` or `±hh`) in nanoseconds since the epoch, the zone applied,
/// and whether it is finer than a millisecond.
pub fn iso_nanos(s: &str) -> Option<(i128, bool)> {
    let b = s.as_bytes();
    let (year, [month, day, hour, min, sec]) = civil(b)?;
    let ms_base = Timestamp::from_parts(year, month, day, hour, min, sec, 0)?;
    let mut i = 19;
    let mut frac_ns: i128 = 0;
    let mut places = 0;
    if matches!(b.get(i), Some(b'.') | Some(b',')) {
        i += 1;
        while let Some(d) = b.get(i).filter(|d| d.is_ascii_digit()) {
            if places < 9 {
                frac_ns = frac_ns * 10 + i128::from(d - b'0');
                places += 1;
            }
            i += 1;
        }
        for _ in places..9 {
            frac_ns *= 10;
        }
    }
    let zone_s: i128 = match b.get(i) {
        Some(b'+') | Some(b'-') => {
            let sign = if b[i] == b'-' { -1 } else { 1 };
            let h = digits(b, i + 1, 2)?;
            let m = digits(b, i + 4, 2)
                .or_else(|| digits(b, i + 3, 2))
                .unwrap_or(0);
            sign * i128::from(h * 3600 + m * 60)
        }
        _ => 0,
    };
    let ns = i128::from(ms_base.0) * 1_000_000 + frac_ns - zone_s * 1_000_000_000;
    Some((ns, places > 3))
}

/// A log4j timestamp (`yyyy-MM-dd HH:mm:ss,SSS`) as milliseconds since
/// 1970-01-01 00:00:00 in the log's own (unknown) time zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// Builds a timestamp from civil fields; `None` when a field is out of range.
    pub fn from_parts(
        year: i64,
        month: u32,
        day: u32,
        hour: u32,
        min: u32,
        sec: u32,
        milli: u32,
    ) -> Option<Timestamp> {
        if !(1..=12).contains(&month)
            || !(1..=31).contains(&day)
            || hour > 23
            || min > 59
            || sec > 60
            || milli > 999
        {
            return None;
        }
        let days = days_from_civil(year, month, day);
        let secs = days * 86_400 + i64::from(hour) * 3600 + i64::from(min) * 60 + i64::from(sec);
        Some(Timestamp(secs * 1000 + i64::from(milli)))
    }

    fn parts(self) -> (i64, u32, u32, u32, u32, u32, u32) {
        let ms = self.0.rem_euclid(1000) as u32;
        let secs = self.0.div_euclid(1000);
        let days = secs.div_euclid(86_400);
        let sod = secs.rem_euclid(86_400) as u32;
        let (y, m, d) = civil_from_days(days);
        (y, m, d, sod / 3600, (sod / 60) % 60, sod % 60, ms)
    }

    /// ISO-8601 without zone: `2019-08-20T11:00:00.001`.
    pub fn iso(self) -> String {
        let (y, mo, d, h, mi, s, ms) = self.parts();
        if !(0..=9999).contains(&y) {
            return format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{ms:03}");
        }
        // The common case digit by digit (findings print several a line).
        let mut b = *b"0000-00-00T00:00:00.000";
        let mut put = |at: usize, n: u32, width: usize| {
            let mut n = n;
            for k in (at..at + width).rev() {
                b[k] = b'0' + (n % 10) as u8;
                n /= 10;
            }
        };
        put(0, y as u32, 4);
        put(5, mo, 2);
        put(8, d, 2);
        put(11, h, 2);
        put(14, mi, 2);
        put(17, s, 2);
        put(20, ms, 3);
        String::from_utf8_lossy(&b).into_owned()
    }
}

impl fmt::Display for Timestamp {
    /// log4j's own form: `2019-08-20 11:00:00,001`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (y, mo, d, h, mi, s, ms) = self.parts();
        write!(f, "{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02},{ms:03}")
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.iso())
    }
}

impl Timestamp {
    /// Parses [`Timestamp::iso`]'s form back (any year, sign included).
    pub fn parse_iso(s: &str) -> Option<Timestamp> {
        let (neg, body) = match s.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, s),
        };
        let year_len = body.bytes().take_while(u8::is_ascii_digit).count();
        if year_len == 0 || year_len > 15 {
            return None;
        }
        let year: i64 = body[..year_len].parse().ok()?;
        let rest = &body.as_bytes()[year_len..];
        let [month, day, hour, min, sec] = after_year(rest)?;
        if rest.len() != 19 || rest[15] != b'.' {
            return None;
        }
        let ts = Timestamp::from_parts(
            if neg { -year } else { year },
            month,
            day,
            hour,
            min,
            sec,
            digits(rest, 16, 3)?,
        )?;
        // Only the canonical spelling round-trips.
        (ts.iso() == s).then_some(ts)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Timestamp, D::Error> {
        let s = std::borrow::Cow::<str>::deserialize(d)?;
        Timestamp::parse_iso(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("not a timestamp: {s:?}")))
    }
}

// Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Civil date (year, month, day) of a day number since 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_digit_by_digit_is_the_formatted_form() {
        let formatted = |t: Timestamp| {
            let (y, mo, d, h, mi, s, ms) = t.parts();
            format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{ms:03}")
        };
        let mut ms = -62_200_000_000_000i64;
        while ms < 300_000_000_000_000 {
            for t in [Timestamp(ms), Timestamp(ms + 999), Timestamp(ms - 1)] {
                assert_eq!(t.iso(), formatted(t), "{}", t.0);
            }
            ms += 7_777_777_777;
        }
    }

    #[test]
    fn timestamp_round_trips() {
        let t = Timestamp::from_parts(2019, 8, 20, 11, 0, 0, 1).unwrap();
        assert_eq!(t.to_string(), "2019-08-20 11:00:00,001");
        assert_eq!(t.iso(), "2019-08-20T11:00:00.001");
        assert_eq!(Timestamp::parse_iso(&t.iso()), Some(t));
        for ms in [
            -62_200_000_000_000,
            -1,
            0,
            253_402_300_800_000,
            4_000_000_000_000_000,
        ] {
            let t = Timestamp(ms);
            assert_eq!(Timestamp::parse_iso(&t.iso()), Some(t), "{}", t.iso());
        }
        let epoch = Timestamp::from_parts(1970, 1, 1, 0, 0, 0, 0).unwrap();
        assert_eq!(epoch.0, 0);
        let leap = Timestamp::from_parts(2024, 2, 29, 23, 59, 59, 999).unwrap();
        assert_eq!(leap.to_string(), "2024-02-29 23:59:59,999");
        assert!(Timestamp::from_parts(2024, 13, 1, 0, 0, 0, 0).is_none());
    }

    #[test]
    fn time_stamps_of_a_kept_minute_read_as_in_full() {
        // Each stamp is read twice in a row and after others of its minute
        // (the kept minute), and each must read as it does from scratch.
        let stamps = [
            "2024-05-02 10:28:17,775 INFO",
            "2024-05-02 10:28:17,776 INFO",
            "2024-05-02 10:28:59.999",
            "2024-05-02 10:28:60,000",
            "2024-05-02 10:28:61,000",
            "2024-05-02 10:28:1x,000",
            "2024-05-02 10:28:17;000",
            "2024-05-02 10:28 17,000",
            "2024-05-02T10:28:00,0001234 x",
            "2024-13-02 10:28:17,775",
            "2024-13-02 10:28:17,776",
            "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0:00,000",
            "1999-12-31 23:59:59,999",
            "2024-05-02 10:28:17,77",
        ];
        let fresh = |s: &str| {
            LAST_MINUTE.set(None);
            log4j(s.as_bytes()).map(|(t, n)| (s.len() - n, t))
        };
        let want: Vec<_> = stamps.iter().map(|s| fresh(s)).collect();
        for first in stamps {
            for (s, w) in stamps.iter().zip(&want) {
                LAST_MINUTE.set(None);
                let _ = log4j(first.as_bytes());
                let got = log4j(s.as_bytes()).map(|(t, n)| (s.len() - n, t));
                assert_eq!(&got, w, "{s:?} after {first:?}");
            }
        }
        assert_eq!(
            want[3],
            Some((0, Timestamp::from_parts(2024, 5, 2, 10, 28, 60, 0)))
        );
        assert_eq!(want[4], Some((0, None)));
        assert_eq!(want[5], None);
        assert_eq!(
            want[8].and_then(|(rest, t)| Some((rest, t?.to_string()))),
            Some((2, "2024-05-02 10:28:00,000".to_string()))
        );
    }

    #[test]
    fn iso_stamps() {
        let (a, fine) = iso_nanos("2025-03-04T10:15:00.123456789Z").unwrap();
        assert!(fine);
        let (b, fine) = iso_nanos("2025-03-04T11:15:00.123+01:00").unwrap();
        assert!(!fine);
        assert_eq!(a - b, 456_789);
        assert_eq!(iso_nanos("2025-03-04 11:15:00,123+0100").unwrap().0, b);
        assert_eq!(iso_nanos("2025-03-04T09:15:00.123-01").unwrap().0, b);
        assert!(iso_nanos("yesterday").is_none());
        assert!(iso_nanos("2025-03-04T10:15").is_none());
        assert!(iso_nanos("2025-13-04T10:15:00Z").is_none());
        assert_eq!(
            iso_nanos("2025-03-04T10:15:00Z").unwrap().0 % 1_000_000_000,
            0
        );
    }

    #[test]
    fn one_shape_for_every_form() {
        assert_eq!(
            civil(b"2024-05-02 10:28:17"),
            Some((2024, [5, 2, 10, 28, 17]))
        );
        assert_eq!(
            civil(b"2024-05-02T10:28:17,775"),
            Some((2024, [5, 2, 10, 28, 17]))
        );
        assert_eq!(
            civil(b"2024-99-02T10:28:17"),
            Some((2024, [99, 2, 10, 28, 17]))
        );
        for s in [
            "2024-05-02_10:28:17",
            "2024/05/02 10:28:17",
            "2024-05-02 10:28:1",
            "20240502T102817",
        ] {
            assert_eq!(civil(s.as_bytes()), None, "{s}");
        }
        assert_eq!(Timestamp::parse_iso("2024-05-02 10:28:17.775"), None);
        assert_eq!(Timestamp::parse_iso("2024-05-02T10:28:17.77"), None);
        assert_eq!(Timestamp::parse_iso("+2024-05-02T10:28:17.775"), None);
    }
}
