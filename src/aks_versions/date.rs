//! A calendar date (proleptic Gregorian, no time zone): what the AKS calendar's dates and `validate --at` are.

use std::fmt;

/// A day, as days since 1970-01-01 (ordered and subtracted as such).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    days: i64,
}

/// Why a text is not a `YYYY-MM-DD` date.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a date: write YYYY-MM-DD, e.g. 2026-03-31")]
pub struct DateError {
    text: String,
}

impl Date {
    /// The date of a year, month (1-12) and day, if it exists.
    pub fn from_ymd(year: i64, month: u32, day: u32) -> Option<Date> {
        if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
            return None;
        }
        Some(Date { days: days_from_civil(year, month, day) })
    }

    /// The day `days` days after 1970-01-01 (a Unix time divided by 86400, rounded down).
    pub fn from_unix_days(days: i64) -> Date {
        Date { days }
    }

    /// `YYYY-MM-DD`.
    pub fn parse(text: &str) -> Result<Date, DateError> {
        let error = || DateError { text: text.to_string() };
        let bytes = text.as_bytes();
        if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
            return Err(error());
        }
        let number = |range: std::ops::Range<usize>| {
            let part = &text[range];
            part.bytes().all(|b| b.is_ascii_digit()).then(|| part.parse::<u32>().ok()).flatten()
        };
        let (Some(year), Some(month), Some(day)) = (number(0..4), number(5..7), number(8..10)) else {
            return Err(error());
        };
        Date::from_ymd(i64::from(year), month, day).ok_or_else(error)
    }

    /// `YYYY-MM`: the first day of that month.
    pub fn parse_month(text: &str) -> Result<Date, DateError> {
        Date::parse(&format!("{text}-01")).map_err(|_| DateError { text: text.to_string() })
    }

    /// Year, month and day.
    pub fn ymd(self) -> (i64, u32, u32) {
        civil_from_days(self.days)
    }

    /// The last day of this date's month.
    pub fn end_of_month(self) -> Date {
        let (year, month, _) = self.ymd();
        Date { days: days_from_civil(year, month, days_in_month(year, month)) }
    }

    /// `days` days later (earlier when negative).
    pub fn plus_days(self, days: i64) -> Date {
        Date { days: self.days + days }
    }

    /// Days from `earlier` to `self` (negative when `earlier` is later).
    pub fn days_since(self, earlier: Date) -> i64 {
        self.days - earlier.days
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (year, month, day) = self.ymd();
        write!(f, "{year:04}-{month:02}-{day:02}")
    }
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Howard Hinnant's days_from_civil and civil_from_days (http://howardhinnant.github.io/date_algorithms.html).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month = i64::from(month);
    let day_of_year = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * shifted_month + 2) / 5 + 1) as u32;
    let month = if shifted_month < 10 { shifted_month + 3 } else { shifted_month - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_round_trip() {
        for text in ["1970-01-01", "2024-02-29", "2026-03-31", "2000-12-31", "1969-12-31"] {
            assert_eq!(Date::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(Date::parse("1970-01-02").unwrap(), Date::from_unix_days(1));
        assert_eq!(Date::parse("2026-12-02").unwrap(), Date::from_unix_days(20_789));
    }

    #[test]
    fn rejects_what_is_not_a_day() {
        for bad in ["2026-02-29", "2026-13-01", "2026-00-10", "2026-04-31", "26-04-01", "2026/04/01", "2026-4-1", ""] {
            let err = Date::parse(bad).unwrap_err();
            assert!(err.to_string().contains("YYYY-MM-DD"), "{bad}: {err}");
        }
        assert!(Date::parse("+026-04-01").is_err());
    }

    #[test]
    fn month_ends_and_arithmetic() {
        let date = |text| Date::parse(text).unwrap();
        assert_eq!(date("2024-02-10").end_of_month(), date("2024-02-29"));
        assert_eq!(date("2026-02-10").end_of_month(), date("2026-02-28"));
        assert_eq!(date("2026-12-31").plus_days(1), date("2027-01-01"));
        assert_eq!(date("2026-03-31").days_since(date("2026-01-30")), 60);
        assert_eq!(Date::parse_month("2026-06").unwrap(), date("2026-06-01"));
        assert!(Date::parse_month("2026-6").is_err());
    }
}
