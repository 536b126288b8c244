//! The presenter's timer: elapsed time that can be paused and reset, computed from clock readings so a slow or
//! throttled interval never makes it drift.

/// A stopwatch over a clock in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stopwatch {
    /// Time counted before the current run.
    banked_ms: f64,
    /// When the current run started, if running.
    running_since: Option<f64>,
}

impl Stopwatch {
    /// A stopwatch started at `now`.
    pub fn started(now: f64) -> Self {
        Stopwatch {
            banked_ms: 0.0,
            running_since: Some(now),
        }
    }

    /// Whether it is running.
    pub fn is_running(&self) -> bool {
        self.running_since.is_some()
    }

    /// Milliseconds counted at `now` (never negative, even if the clock went back).
    pub fn elapsed_ms(&self, now: f64) -> f64 {
        let running = self
            .running_since
            .map_or(0.0, |since| (now - since).max(0.0));
        self.banked_ms + running
    }

    /// Pauses at `now`, or resumes if paused.
    pub fn toggle(&mut self, now: f64) {
        self.banked_ms = self.elapsed_ms(now);
        self.running_since = match self.running_since {
            Some(_) => None,
            None => Some(now),
        };
    }

    /// Back to zero at `now`, still running if it was.
    pub fn reset(&mut self, now: f64) {
        self.banked_ms = 0.0;
        if self.running_since.is_some() {
            self.running_since = Some(now);
        }
    }
}

/// Elapsed time as a clock shows it: `m:ss` under an hour, `h:mm:ss` after.
pub fn format_elapsed(ms: f64) -> String {
    let seconds = (ms.max(0.0) / 1000.0).floor() as u64;
    let (hours, minutes, seconds) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if hours > 0 {
        format!("{hours}:{minutes:02}:{seconds:02}")
    } else {
        format!("{minutes}:{seconds:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pausing_stops_the_count_and_resuming_continues_it() {
        let mut watch = Stopwatch::started(1_000.0);
        assert_eq!(watch.elapsed_ms(61_000.0), 60_000.0);
        watch.toggle(61_000.0);
        assert!(!watch.is_running());
        assert_eq!(
            watch.elapsed_ms(500_000.0),
            60_000.0,
            "paused time does not count"
        );
        watch.toggle(500_000.0);
        assert_eq!(watch.elapsed_ms(505_000.0), 65_000.0);
        assert_eq!(
            watch.elapsed_ms(0.0),
            60_000.0,
            "a clock that jumps back never counts negative time"
        );
    }

    #[test]
    fn reset_starts_again_from_zero() {
        let mut watch = Stopwatch::started(0.0);
        watch.reset(10_000.0);
        assert_eq!(watch.elapsed_ms(12_000.0), 2_000.0);
        watch.toggle(12_000.0);
        watch.reset(20_000.0);
        assert_eq!(
            watch.elapsed_ms(30_000.0),
            0.0,
            "a paused watch stays paused at zero"
        );
    }

    #[test]
    fn elapsed_time_reads_like_a_clock() {
        assert_eq!(format_elapsed(0.0), "0:00");
        assert_eq!(format_elapsed(65_999.0), "1:05");
        assert_eq!(format_elapsed(3_725_000.0), "1:02:05");
        assert_eq!(format_elapsed(-5.0), "0:00");
    }
}
