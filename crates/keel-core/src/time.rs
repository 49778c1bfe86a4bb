//! Timestamps passed in by the caller.
//!
//! keel-core has no clock: whoever creates an item or closes a turn supplies the time, so tests
//! replay exactly. A timestamp is milliseconds since the Unix epoch, shown as RFC 3339 UTC.

use serde::{Deserialize, Serialize};

/// Milliseconds since 1970-01-01T00:00:00Z.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Timestamp(pub i64);

impl Timestamp {
    pub fn from_millis(ms: i64) -> Self {
        Self(ms)
    }

    pub fn millis(self) -> i64 {
        self.0
    }

    /// RFC 3339 in UTC with millisecond precision, e.g. `2026-11-29T21:31:40.000Z`.
    pub fn to_rfc3339(self) -> String {
        let ms = self.0.rem_euclid(1000);
        let secs = self.0.div_euclid(1000);
        let days = secs.div_euclid(86_400);
        let sod = secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{ms:03}Z",
            sod / 3600,
            (sod % 3600) / 60,
            sod % 60
        )
    }
}

/// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian calendar).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(Timestamp(0).to_rfc3339(), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            Timestamp(951_782_400_123).to_rfc3339(),
            "2000-02-29T00:00:00.123Z"
        );
        assert_eq!(
            Timestamp(1_795_987_900_000).to_rfc3339(),
            "2026-11-29T21:31:40.000Z"
        );
        assert_eq!(Timestamp(-1).to_rfc3339(), "1969-12-31T23:59:59.999Z");
    }
}
